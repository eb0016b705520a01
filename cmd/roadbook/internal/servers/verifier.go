package servers

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/roadbook/roadbook/auth"
)

// mcpActor is the `act.sub` the MCP service states in its service
// credential; the API trusts only this actor.
const mcpActor = "roadbook-mcp"

// serviceKey is the MCP service's HS256 key as the API trusts it and the
// MCP service signs with it (ROADBOOK_MCP_SERVICE_KEY, _KEY_ID).
func serviceKey(id, secret string) (auth.Key, error) {
	if len(secret) < 32 {
		return auth.Key{}, fmt.Errorf("the MCP service key must be at least 32 bytes, got %d", len(secret))
	}
	if id == "" {
		return auth.Key{}, fmt.Errorf("the MCP service key needs a key id")
	}
	return auth.Key{ID: id, Algorithm: "HS256", Secret: []byte(secret)}, nil
}

// apiVerifier is the API's token check: users' tokens from users (a JWKS
// or the dev issuer's key), the MCP service's credentials from its own key
// set, audience aud.
func apiVerifier(users auth.KeySet, issuer string, service *auth.Key, aud string) (*auth.Verifier, error) {
	cfg := auth.Config{Users: users, UserIssuer: issuer, Audience: aud}
	if service != nil {
		cfg.Services = auth.NewStaticKeys(*service)
		cfg.TrustedActors = []string{mcpActor}
		// The MCP service mints its credentials with iss = its actor name
		// (RunMCP), for two minutes (auth.DefaultServiceMaxLifetime bounds them).
		cfg.ServiceIssuer = mcpActor
	}
	return auth.NewVerifier(cfg)
}

// jwksOptions are the identity provider's key set settings of `roadbook
// api` and `roadbook mcp`: refreshed in the background until the command
// ends, failed fetches in the service's log.
func jwksOptions(ctx context.Context, log *slog.Logger) auth.JWKSOptions {
	return auth.JWKSOptions{Ctx: ctx, OnRefreshError: func(ctx context.Context, err error) {
		log.WarnContext(ctx, "jwks refresh failed; the keys fetched before keep verifying", slog.Any("error", err))
	}}
}
