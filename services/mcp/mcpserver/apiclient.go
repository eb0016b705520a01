package mcpserver

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/mcp/internal/tools"
)

// credentialTTL is the life of one service credential: short, so a leaked
// one is soon useless, with slack for clock skew.
const credentialTTL = 2 * time.Minute

// credentialReuse is how long a minted credential is reused for the same
// user and scopes: most of its life, so it never reaches the API with less
// than credentialTTL-credentialReuse (longer than the API client's timeout)
// left, while a busy agent costs one signature every 90 s, not one a call.
const credentialReuse = 80 * time.Second

// credentialCacheSize bounds the cached credentials; when full, the least
// recently used goes (golang-lru), so the busy users keep theirs.
const credentialCacheSize = 4096

// credential is the Connect interceptor that authenticates every API call
// as the MCP service acting for the caller in the context. The agent's own
// token never leaves this service.
type credential struct {
	issuer   ServiceIssuer
	actor    string
	audience string
	// now is wall-clock time: a credential's lifetime is real, whatever
	// clock the tools run on (tests inject their own).
	now func() time.Time

	once   sync.Once
	minted *lru.Cache[credentialKey, mintedCredential]
}

// cache is the credential cache, made on first use.
func (c *credential) cache() *lru.Cache[credentialKey, mintedCredential] {
	c.once.Do(func() { c.minted, _ = lru.New[credentialKey, mintedCredential](credentialCacheSize) })
	return c.minted
}

// credentialKey is what a credential says besides its times: the user and
// the scopes granted (a read-only agent of a user never borrows the
// credential of a read-write one).
type credentialKey struct {
	user        string
	read, write bool
}

type mintedCredential struct {
	token    string
	reuseEnd time.Time
}

func (c *credential) token(ctx context.Context) (string, error) {
	caller, ok := tools.CallerFrom(ctx)
	if !ok || caller.UserID == "" {
		return "", connect.NewError(connect.CodeUnauthenticated, errors.New("mcpserver: no caller to act for"))
	}
	key := credentialKey{user: caller.UserID, read: caller.Has(string(auth.ScopeRead)), write: caller.Has(string(auth.ScopeWrite))}
	now := c.now()
	m, ok := c.cache().Get(key)
	if ok && now.Before(m.reuseEnd) {
		return m.token, nil
	}
	var scopes []auth.Scope
	if key.read {
		scopes = append(scopes, auth.ScopeRead)
	}
	if key.write {
		scopes = append(scopes, auth.ScopeWrite)
	}
	tok, err := c.issuer.Mint(auth.Claims{Subject: caller.UserID, Audience: []string{c.audience}, IssuedAt: now,
		ExpiresAt: now.Add(credentialTTL), Scopes: scopes, Actor: c.actor})
	if err != nil {
		return "", err
	}
	c.cache().Add(key, mintedCredential{token: tok, reuseEnd: now.Add(credentialReuse)})
	return tok, nil
}

func (c *credential) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		tok, err := c.token(ctx)
		if err != nil {
			return nil, err
		}
		req.Header().Set("Authorization", "Bearer "+tok)
		return next(ctx, req)
	}
}

func (c *credential) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		if tok, err := c.token(ctx); err == nil {
			conn.RequestHeader().Set("Authorization", "Bearer "+tok)
		}
		return conn
	}
}

func (c *credential) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// withoutCompression turns off gzip between this service and the API. They
// sit side by side (loopback or one cluster network), where compressing a
// ~10 KB trip digest costs both of them more CPU than the bytes it saves:
// gzip was ~5 % of all CPU under bench-mcp.
var withoutCompression = connect.WithAcceptCompression("gzip", nil, nil)

// newAPI builds the Connect clients the tools call.
func newAPI(cfg *Config) tools.API {
	base := strings.TrimRight(cfg.APIBaseURL, "/")
	opts := connect.WithClientOptions(withoutCompression,
		connect.WithInterceptors(tracePropagation{tracer: cfg.TracerProvider.Tracer(TracerName)},
			&credential{issuer: cfg.ServiceIssuer, actor: cfg.ServiceActor, audience: cfg.APIAudience, now: time.Now}))
	hc := cfg.HTTPClient
	return tools.API{
		Trips:          roadbookv1connect.NewTripServiceClient(hc, base, opts),
		Stages:         roadbookv1connect.NewStageEditServiceClient(hc, base, opts),
		Accommodations: roadbookv1connect.NewAccommodationServiceClient(hc, base, opts),
		Shares:         roadbookv1connect.NewShareServiceClient(hc, base, opts),
		Geocoding:      roadbookv1connect.NewGeocodingServiceClient(hc, base, opts),
	}
}
