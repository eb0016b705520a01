package auth

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Scope is an OAuth scope the API requires of a caller.
type Scope string

// The API's scopes (DOMAIN §9).
const (
	// ScopeRead allows every read of the caller's own trips.
	ScopeRead Scope = "trips:read"
	// ScopeWrite allows every write to the caller's own trips.
	ScopeWrite Scope = "trips:write"
)

// DefaultAudience is the audience API tokens must name unless configured
// otherwise.
const DefaultAudience = "roadbook-api"

// Claims is what a Roadbook token states. Mint writes them and Verify reads
// them back, so the dev issuer, the MCP service and the tests all build
// tokens from one shape.
type Claims struct {
	// Issuer is `iss`.
	Issuer string
	// Subject is `sub`: the user id.
	Subject string
	// Audience is `aud`.
	Audience []string
	// ExpiresAt is `exp` (required by the verifier).
	ExpiresAt time.Time
	// IssuedAt is `iat`; zero means "now" when minting.
	IssuedAt time.Time
	// Scopes are the space-separated `scope` claim.
	Scopes []Scope
	// Actor is `act.sub` (RFC 8693): the service acting for Subject; empty
	// for a user's own token.
	Actor string
}

// Principal is the verified caller a handler acts for.
type Principal struct {
	// UserID is the effective user: `sub` of a user token, or the user a
	// trusted service acts for.
	UserID string
	// Scopes are the granted scopes.
	Scopes []Scope
	// Actor is the service that acts for the user (e.g. "roadbook-mcp");
	// empty when the user calls directly.
	Actor string
}

// Has reports whether the principal was granted scope.
func (p Principal) Has(scope Scope) bool { return slices.Contains(p.Scopes, scope) }

// parseScopes splits a `scope` claim.
func parseScopes(s string) []Scope {
	var out []Scope
	for _, f := range strings.Fields(s) {
		out = append(out, Scope(f))
	}
	return out
}

// joinScopes renders a `scope` claim.
func joinScopes(scopes []Scope) string {
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, " ")
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p; the interceptor and middleware call
// it, and tests of handlers may too.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the verified caller of a request, if any (public
// routes have none).
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
