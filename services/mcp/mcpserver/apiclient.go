package mcpserver

import (
	"context"
	"errors"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/auth"
	"github.com/roadbook/roadbook/services/mcp/internal/tools"
)

// credentialTTL is the life of one service credential: one call, with slack
// for clock skew.
const credentialTTL = 2 * time.Minute

// credential is the Connect interceptor that authenticates every API call
// as the MCP service acting for the caller in the context. The agent's own
// token never leaves this service.
type credential struct {
	issuer   ServiceIssuer
	actor    string
	audience string
}

func (c *credential) token(ctx context.Context) (string, error) {
	caller, ok := tools.CallerFrom(ctx)
	if !ok || caller.UserID == "" {
		return "", connect.NewError(connect.CodeUnauthenticated, errors.New("mcpserver: no caller to act for"))
	}
	var scopes []auth.Scope
	for _, s := range caller.Scopes {
		if s == string(auth.ScopeRead) || s == string(auth.ScopeWrite) {
			scopes = append(scopes, auth.Scope(s))
		}
	}
	// Wall-clock time: a credential's lifetime is real, whatever clock the
	// tools run on.
	now := time.Now()
	return c.issuer.Mint(auth.Claims{Subject: caller.UserID, Audience: []string{c.audience}, IssuedAt: now,
		ExpiresAt: now.Add(credentialTTL), Scopes: scopes, Actor: c.actor})
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

// newAPI builds the Connect clients the tools call.
func newAPI(cfg *Config) tools.API {
	base := strings.TrimRight(cfg.APIBaseURL, "/")
	opts := connect.WithInterceptors(&credential{issuer: cfg.ServiceIssuer, actor: cfg.ServiceActor, audience: cfg.APIAudience})
	hc := cfg.HTTPClient
	return tools.API{
		Trips:          roadbookv1connect.NewTripServiceClient(hc, base, opts),
		Stages:         roadbookv1connect.NewStageEditServiceClient(hc, base, opts),
		Accommodations: roadbookv1connect.NewAccommodationServiceClient(hc, base, opts),
		Shares:         roadbookv1connect.NewShareServiceClient(hc, base, opts),
		Geocoding:      roadbookv1connect.NewGeocodingServiceClient(hc, base, opts),
	}
}
