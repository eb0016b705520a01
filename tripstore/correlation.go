package tripstore

import (
	"context"

	"github.com/google/uuid"
)

// correlationKey carries a call's correlation id in its context.
type correlationKey struct{}

// WithCorrelationID returns ctx carrying the correlation id of the call it
// serves: the API's telemetry interceptor binds one per RPC, logs it, and
// the events the call appends record it (eventstore.Metadata).
func WithCorrelationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}

// CorrelationID is the correlation id of the call in ctx, or a fresh one
// outside any call (a test calling a use case directly).
func CorrelationID(ctx context.Context) string {
	if id, ok := ctx.Value(correlationKey{}).(string); ok {
		return id
	}
	return uuid.NewString()
}
