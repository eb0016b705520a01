package tools

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/mcp/internal/seal"
)

// API is the set of Connect clients the tools call. Every tool wraps the
// same RPC a frontend uses; nothing here decides a rule of its own.
type API struct {
	Trips          roadbookv1connect.TripServiceClient
	Stages         roadbookv1connect.StageEditServiceClient
	Accommodations roadbookv1connect.AccommodationServiceClient
	Shares         roadbookv1connect.ShareServiceClient
	Geocoding      roadbookv1connect.GeocodingServiceClient
}

// Env is what the tools need at run time.
type Env struct {
	// API is the Connect clients; their interceptor mints the service
	// credential for the Caller found in the call's context.
	API API
	// Cursors sign list cursors; Confirmations sign confirmation tokens
	// (each with its own keys).
	Cursors, Confirmations *seal.Keys
	// Clock is the injectable clock (idempotency windows, token expiry).
	Clock func() time.Time
	// Logger receives one line per failed call.
	Logger *slog.Logger
	// Caller says who makes a call: from the verified bearer token on HTTP,
	// from the environment's token on stdio. False refuses the call.
	Caller func(req *mcp.CallToolRequest) (Caller, bool)
}

// Caller is the person an agent acts for, as their token says.
type Caller struct {
	// UserID is the token's subject.
	UserID string
	// Scopes are the scopes the token grants (trips:read, trips:write).
	Scopes []string
}

// Has reports whether the caller was granted scope.
func (c Caller) Has(scope string) bool { return slices.Contains(c.Scopes, scope) }

type callerKey struct{}

// WithCaller returns ctx carrying c, which the API client's interceptor reads
// to mint the service credential for this user.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller a tool acts for.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// The scopes a tool can require.
const (
	// ScopeRead is needed by the four reading tools.
	ScopeRead = "trips:read"
	// ScopeWrite is needed by the nine writing tools.
	ScopeWrite = "trips:write"
)
