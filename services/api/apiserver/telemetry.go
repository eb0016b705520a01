package apiserver

import (
	"context"
	"log/slog"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/otelconnect"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/roadbook/roadbook/tripstore"
)

// tracing is the outermost interceptor: connectrpc.com/otelconnect
// continues the caller's W3C trace (traceparent header) with a server span
// per RPC, named after the procedure, its status Error only for the
// server's own failures. Metrics stay Roadbook's own (metrics.go).
func tracing(tp trace.TracerProvider) (connect.Interceptor, error) {
	return otelconnect.NewInterceptor(otelconnect.WithTracerProvider(tp), otelconnect.WithPropagator(propagation.TraceContext{}),
		otelconnect.WithTrustRemote(), otelconnect.WithoutMetrics())
}

// telemetry runs inside tracing: it gives the call a correlation id that
// its events carry, adds it and the trip id to the span, and writes the one
// request log line (procedure, code, duration, trip_id, correlation_id,
// trace_id).
type telemetry struct {
	log *slog.Logger
}

func newTelemetry(log *slog.Logger) *telemetry {
	return &telemetry{log: log}
}

// start binds a correlation id to the call and its span.
func (t *telemetry) start(ctx context.Context) (context.Context, trace.Span, string) {
	span := trace.SpanFromContext(ctx)
	cid := uuid.NewString()
	span.SetAttributes(attribute.String("roadbook.correlation_id", cid))
	return tripstore.WithCorrelationID(ctx, cid), span, cid
}

// finish adds the trip id to the span (tracing ends it) and logs the request.
func (t *telemetry) finish(ctx context.Context, span trace.Span, spec connect.Spec, cid, tripID string, start time.Time, err error) {
	code := "ok"
	level := slog.LevelInfo
	if err != nil {
		code = connect.CodeOf(err).String()
		if serverFault(connect.CodeOf(err)) {
			level = slog.LevelWarn
		}
	}
	if tripID != "" {
		span.SetAttributes(attribute.String("roadbook.trip_id", tripID))
	}
	attrs := []slog.Attr{
		slog.String("procedure", spec.Procedure),
		slog.String("code", code),
		slog.Duration("duration", time.Since(start)),
		slog.String("correlation_id", cid),
	}
	if tripID != "" {
		attrs = append(attrs, slog.String("trip_id", tripID))
	}
	if sc := span.SpanContext(); sc.HasTraceID() {
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()))
	}
	t.log.LogAttrs(ctx, level, "rpc", attrs...)
}

// WrapUnary implements connect.Interceptor.
func (t *telemetry) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if req.Spec().IsClient {
			return next(ctx, req)
		}
		start := time.Now()
		ctx, span, cid := t.start(ctx)
		res, err := next(ctx, req)
		id := tripIDOf(req.Any())
		if id == "" && res != nil {
			id = tripIDOf(res.Any())
		}
		t.finish(ctx, span, req.Spec(), cid, id, start, err)
		return res, err
	}
}

// WrapStreamingClient implements connect.Interceptor (no-op: the API is
// not a client).
func (t *telemetry) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler implements connect.Interceptor: one span for the
// whole stream (WatchTrip).
func (t *telemetry) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		start := time.Now()
		ctx, span, cid := t.start(ctx)
		rec := &recordingConn{StreamingHandlerConn: conn}
		err := next(ctx, rec)
		t.finish(ctx, span, conn.Spec(), cid, rec.tripID, start, err)
		return err
	}
}

// recordingConn remembers the trip id of the first request message of a
// stream, for the log line written when it ends.
type recordingConn struct {
	connect.StreamingHandlerConn
	tripID string
}

func (c *recordingConn) Receive(msg any) error {
	err := c.StreamingHandlerConn.Receive(msg)
	if err == nil && c.tripID == "" {
		c.tripID = tripIDOf(msg)
	}
	return err
}

// serverFault reports whether a code is the server's failure (logged as a
// warning) rather than the caller's (a refused request is a normal answer).
func serverFault(c connect.Code) bool {
	switch c {
	case connect.CodeInternal, connect.CodeUnknown, connect.CodeUnavailable,
		connect.CodeDataLoss, connect.CodeDeadlineExceeded, connect.CodeUnimplemented:
		return true
	}
	return false
}

// tripIDOf reads a top-level string field trip_id of a message (requests
// of trip RPCs, responses of the create calls); "" when there is none.
func tripIDOf(msg any) string {
	m, ok := msg.(proto.Message)
	if !ok || m == nil {
		return ""
	}
	r := m.ProtoReflect()
	if !r.IsValid() {
		return ""
	}
	f := r.Descriptor().Fields().ByName("trip_id")
	if f == nil || f.Kind() != protoreflect.StringKind || f.IsList() {
		return ""
	}
	return r.Get(f).String()
}
