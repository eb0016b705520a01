package tripstore

import (
	"context"

	"go.opentelemetry.io/otel/propagation"

	"github.com/roadbook/roadbook/eventstore"
)

// TraceKeyParent is the key of the W3C traceparent in eventstore.Metadata's
// Trace map (the relay copies it into the NATS header of the same name).
const TraceKeyParent = "traceparent"

// traceContext is the one propagation format of Roadbook: W3C Trace Context
// (traceparent, tracestate), the same in event metadata and NATS headers.
var traceContext = propagation.TraceContext{}

// withTrace returns md carrying the trace context of the span in ctx, unless
// the caller set md.Trace itself. Execute applies it, so every handler that
// appends inside a span (an API call, a worker's job) links its events to
// that trace without per-call code; outside a span md is unchanged.
func withTrace(ctx context.Context, md eventstore.Metadata) eventstore.Metadata {
	if len(md.Trace) > 0 {
		return md
	}
	carrier := propagation.MapCarrier{}
	traceContext.Inject(ctx, carrier)
	if carrier[TraceKeyParent] == "" {
		return md
	}
	md.Trace = carrier
	return md
}

// TraceContext returns ctx carrying the remote span context recorded in an
// event's metadata (none: ctx unchanged), for a consumer that starts its
// span as a child of the appending call's.
func TraceContext(ctx context.Context, md eventstore.Metadata) context.Context {
	if len(md.Trace) == 0 {
		return ctx
	}
	return traceContext.Extract(ctx, propagation.MapCarrier(md.Trace))
}
