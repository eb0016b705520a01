package apiserver

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/roadbook/roadbook/tripstore"
)

// TracerName is the instrumentation scope of the API's spans.
const TracerName = "github.com/roadbook/roadbook/services/api/apiserver"

// telemetry is the outermost interceptor: it continues the caller's W3C
// trace (traceparent header) with a server span per RPC, gives the call a
// correlation id that its events carry, and writes the one request log
// line (procedure, code, duration, trip_id, correlation_id, trace_id).
// otelconnect is not vendored here; this is the small part of it Roadbook
// needs, on the otel API only (a no-op without a TracerProvider).
type telemetry struct {
	tracer trace.Tracer
	log    *slog.Logger
}

func newTelemetry(tp trace.TracerProvider, log *slog.Logger) *telemetry {
	return &telemetry{tracer: tp.Tracer(TracerName), log: log}
}

// start extracts the caller's trace context, starts the server span and
// binds a correlation id.
func (t *telemetry) start(ctx context.Context, spec connect.Spec, header http.Header) (context.Context, trace.Span, string) {
	ctx = propagation.TraceContext{}.Extract(ctx, propagation.HeaderCarrier(header))
	service, method := splitProcedure(spec.Procedure)
	ctx, span := t.tracer.Start(ctx, strings.TrimPrefix(spec.Procedure, "/"),
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.String("rpc.system", "connect_rpc"),
			attribute.String("rpc.service", service),
			attribute.String("rpc.method", method),
		))
	cid := uuid.NewString()
	span.SetAttributes(attribute.String("roadbook.correlation_id", cid))
	return tripstore.WithCorrelationID(ctx, cid), span, cid
}

// finish records the outcome on the span and logs the request.
func (t *telemetry) finish(ctx context.Context, span trace.Span, spec connect.Spec, cid, tripID string, start time.Time, err error) {
	code := "ok"
	level := slog.LevelInfo
	if err != nil {
		code = connect.CodeOf(err).String()
		span.SetAttributes(attribute.String("rpc.connect_rpc.error_code", code))
		if serverFault(connect.CodeOf(err)) {
			span.SetStatus(codes.Error, err.Error())
			level = slog.LevelWarn
		}
	}
	if tripID != "" {
		span.SetAttributes(attribute.String("roadbook.trip_id", tripID))
	}
	span.End()
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
		ctx, span, cid := t.start(ctx, req.Spec(), req.Header())
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
		ctx, span, cid := t.start(ctx, conn.Spec(), conn.RequestHeader())
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

// serverFault reports whether a code is the server's failure (span status
// Error) rather than the caller's (a refused request is a normal answer).
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

// splitProcedure splits "/pkg.Service/Method" into service and method.
func splitProcedure(p string) (string, string) {
	p = strings.TrimPrefix(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, ""
}
