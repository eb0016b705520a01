package main

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

	"github.com/roadbook/roadbook/services/api/auth"
)

// Names of the dev instance's files under --data-dir.
const (
	devSecretsFile = "secrets.json"
	devInfoFile    = "dev.json"
	devStoreFile   = "roadbook.db"
	devNATSDir     = "nats"
)

// The dev issuer's fixed identity: its tokens name this issuer and key id,
// so a token minted by `roadbook token` verifies against a running dev.
const (
	devIssuer = "roadbook-dev"
	devKeyID  = "roadbook-dev-1"
	// devServiceKeyID is the kid of the MCP service key in one-process mode.
	devServiceKeyID = "roadbook-mcp-dev-1"
	// devUser is the user `roadbook dev` prints tokens for, and the user
	// unauthenticated requests act as under --no-auth.
	devUser = "dev"
)

// devSecrets are generated once per data directory and kept there, so
// tokens, MCP cursors and list page tokens stay valid across restarts.
type devSecrets struct {
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

// devInfo is <data-dir>/dev.json: what scripts need to talk to a running
// dev instance. Written once every service is ready.
type devInfo struct {
	// AppURL is the web planner; opening it signs in as the dev user.
	AppURL   string `json:"appUrl"`
	APIURL   string `json:"apiUrl"`
	MCPURL   string `json:"mcpUrl"`
	APIToken string `json:"apiToken"`
	MCPToken string `json:"mcpToken"`
}

// loadOrCreateSecrets reads the data directory's secrets, generating them
// (0600) on the first start.
func loadOrCreateSecrets(dir string) (devSecrets, error) {
	s, err := readSecrets(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	s = devSecrets{UserKey: randomKey(), ServiceKey: randomKey(), CursorKey: randomKey(), ConfirmKey: randomKey(), PageTokenKey: randomKey()}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return devSecrets{}, err
	}
	return s, writeFileAtomic(filepath.Join(dir, devSecretsFile), b)
}

// readSecrets reads the secrets of an existing dev data directory; the
// error matches fs.ErrNotExist when there is none.
func readSecrets(dir string) (devSecrets, error) {
	path := filepath.Join(dir, devSecretsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return devSecrets{}, fmt.Errorf("%s is not a dev data directory (no %s; run `roadbook dev --data-dir %s` once): %w",
				dir, devSecretsFile, dir, err)
		}
		return devSecrets{}, err
	}
	var s devSecrets
	if err := json.Unmarshal(b, &s); err != nil {
		return devSecrets{}, fmt.Errorf("%s is not valid JSON (delete it to start over): %w", path, err)
	}
	if len(s.UserKey) < 32 || len(s.ServiceKey) < 32 || len(s.CursorKey) < 32 || len(s.ConfirmKey) < 32 || len(s.PageTokenKey) < 32 {
		return devSecrets{}, fmt.Errorf("%s lacks a key of at least 32 bytes (delete it to start over)", path)
	}
	return s, nil
}

// randomKey is 32 random bytes, hex encoded (64 characters).
func randomKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// writeFileAtomic writes b to path (0600) through a rename, so a reader
// never sees half a file: scripts poll for dev.json.
func writeFileAtomic(path string, b []byte) error {
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

// readDevInfo reads a dev instance's dev.json.
func readDevInfo(dir string) (devInfo, error) {
	path := filepath.Join(dir, devInfoFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return devInfo{}, fmt.Errorf("%s does not exist: start `roadbook dev --data-dir %s` first, or pass --api-url and --token", path, dir)
		}
		return devInfo{}, err
	}
	var d devInfo
	if err := json.Unmarshal(b, &d); err != nil {
		return devInfo{}, fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	return d, nil
}

// devIssuerFor is the HS256 issuer of a data directory's secrets.
func devIssuerFor(s devSecrets) (*auth.HS256Issuer, error) {
	return auth.NewHS256Issuer(devKeyID, []byte(s.UserKey), devIssuer)
}

// mintDevToken mints a user's token for audience, valid for ttl, with both
// scopes (a dev user may read and write their own trips).
func mintDevToken(iss *auth.HS256Issuer, user, audience string, ttl time.Duration) (string, error) {
	return iss.Mint(auth.Claims{Subject: user, Audience: []string{audience}, ExpiresAt: time.Now().Add(ttl),
		Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
}
