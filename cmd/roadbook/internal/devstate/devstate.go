// Package devstate is a dev instance's data directory: the secrets
// generated on its first start (token, service, cursor, confirmation and
// page-token keys) and dev.json, what a running `roadbook dev` tells
// scripts and the CLI (its URLs and tokens). The dev runner writes them; the
// CLI reads them for its defaults and `roadbook token` mints with them.
package devstate

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/roadbook/roadbook/auth"
)

// Names of the dev instance's files under --data-dir.
const (
	SecretsFile = "secrets.json"
	InfoFile    = "dev.json"
	StoreFile   = "roadbook.db"
	NATSDir     = "nats"
)

// The dev issuer's fixed identity: its tokens name this issuer and key id,
// so a token minted by `roadbook token` verifies against a running dev.
const (
	Issuer = "roadbook-dev"
	KeyID  = "roadbook-dev-1"
	// ServiceKeyID is the kid of the MCP service key in one-process mode.
	ServiceKeyID = "roadbook-mcp-dev-1"
	// User is the user `roadbook dev` prints tokens for, and the user
	// unauthenticated requests act as under --no-auth.
	User = "dev"
)

// Secrets are generated once per data directory and kept there, so
// tokens, MCP cursors and list page tokens stay valid across restarts.
type Secrets struct {
	// UserKey signs the dev users' tokens (HS256).
	UserKey string `json:"userKey"`
	// ServiceKey signs the MCP service's credentials for the API.
	ServiceKey string `json:"serviceKey"`
	// CursorKey and ConfirmKey are the MCP service's HMAC keys.
	CursorKey  string `json:"cursorKey"`
	ConfirmKey string `json:"confirmKey"`
	// PageTokenKey signs the API's list page tokens.
	PageTokenKey string `json:"pageTokenKey"`
}

// Info is <data-dir>/dev.json: what scripts need to talk to a running
// dev instance. Written once every service is ready.
type Info struct {
	// AppURL is the web planner; opening it signs in as the dev user.
	AppURL   string `json:"appUrl"`
	APIURL   string `json:"apiUrl"`
	MCPURL   string `json:"mcpUrl"`
	APIToken string `json:"apiToken"`
	MCPToken string `json:"mcpToken"`
}

// LoadOrCreateSecrets reads the data directory's secrets, generating them
// (0600) on the first start.
func LoadOrCreateSecrets(dir string) (Secrets, error) {
	s, err := ReadSecrets(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	s = Secrets{UserKey: randomKey(), ServiceKey: randomKey(), CursorKey: randomKey(), ConfirmKey: randomKey(), PageTokenKey: randomKey()}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return Secrets{}, err
	}
	return s, WriteFileAtomic(filepath.Join(dir, SecretsFile), b)
}

// ReadSecrets reads the secrets of an existing dev data directory; the
// error matches fs.ErrNotExist when there is none.
func ReadSecrets(dir string) (Secrets, error) {
	path := filepath.Join(dir, SecretsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Secrets{}, fmt.Errorf("%s is not a dev data directory (no %s; run `roadbook dev --data-dir %s` once): %w",
				dir, SecretsFile, dir, err)
		}
		return Secrets{}, err
	}
	var s Secrets
	if err := json.Unmarshal(b, &s); err != nil {
		return Secrets{}, fmt.Errorf("%s is not valid JSON (delete it to start over): %w", path, err)
	}
	if len(s.UserKey) < 32 || len(s.ServiceKey) < 32 || len(s.CursorKey) < 32 || len(s.ConfirmKey) < 32 || len(s.PageTokenKey) < 32 {
		return Secrets{}, fmt.Errorf("%s lacks a key of at least 32 bytes (delete it to start over)", path)
	}
	return s, nil
}

// randomKey is 32 random bytes, hex encoded (64 characters).
func randomKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// WriteFileAtomic writes b to path (0600) through a rename, so a reader
// never sees half a file: scripts poll for dev.json.
func WriteFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadInfo reads a dev instance's dev.json.
func ReadInfo(dir string) (Info, error) {
	path := filepath.Join(dir, InfoFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Info{}, fmt.Errorf("%s does not exist: start `roadbook dev --data-dir %s` first, or pass --api-url and --token", path, dir)
		}
		return Info{}, err
	}
	var d Info
	if err := json.Unmarshal(b, &d); err != nil {
		return Info{}, fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	return d, nil
}

// IssuerFor is the HS256 issuer of a data directory's secrets.
func IssuerFor(s Secrets) (*auth.HS256Issuer, error) {
	return auth.NewHS256Issuer(KeyID, []byte(s.UserKey), Issuer)
}

// MintToken mints a user's token for audience, valid for ttl, with both
// scopes (a dev user may read and write their own trips).
func MintToken(iss *auth.HS256Issuer, user, audience string, ttl time.Duration) (string, error) {
	return iss.Mint(auth.Claims{Subject: user, Audience: []string{audience}, ExpiresAt: time.Now().Add(ttl),
		Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
}
