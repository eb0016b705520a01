package tripcli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/devstate"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/envflag"
)

// RunToken is `roadbook token`: a dev token for any user of a dev instance,
// signed with the key kept in its data directory, for trying what another
// user can and cannot see.
func RunToken(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := envflag.New("token", stderr)
	dataDir := fs.String("data-dir", "./.roadbook", "the dev instance's data directory")
	user := fs.String("user", devstate.User, "the user (token subject)")
	audience := fs.String("audience", "api", "api (the Connect API) or mcp (the dev instance's MCP resource, read from dev.json)")
	ttl := fs.Duration("ttl", 30*24*time.Hour, "lifetime of the token")
	if err := envflag.Parse(fs, args); err != nil {
		return err
	}
	if *user == "" {
		fmt.Fprintln(stderr, "roadbook token: --user must not be empty")
		return envflag.ErrUsage
	}
	aud := auth.DefaultAudience
	switch *audience {
	case "api":
	case "mcp":
		info, err := devstate.ReadInfo(*dataDir)
		if err != nil {
			return err
		}
		aud = info.MCPURL
	default:
		fmt.Fprintf(stderr, "roadbook token: --audience %q is not api or mcp\n", *audience)
		return envflag.ErrUsage
	}
	secrets, err := devstate.ReadSecrets(*dataDir)
	if err != nil {
		return err
	}
	iss, err := devstate.IssuerFor(secrets)
	if err != nil {
		return err
	}
	tok, err := devstate.MintToken(iss, *user, aud, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}
