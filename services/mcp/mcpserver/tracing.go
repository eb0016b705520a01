package mcpserver

import (
	"context"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// TracerName is the instrumentation scope of the MCP service's spans.
const TracerName = "github.com/roadbook/roadbook/services/mcp/mcpserver"

// traceContext is the W3C Trace Context propagator (traceparent,
// tracestate): the format the API continues (ARCHITECTURE §7: traces follow a
// request from the agent's host through the API to the events it writes).
var traceContext = propagation.TraceContext{}

// traceHTTP continues the trace of an incoming /mcp request (its
// traceparent header) with a server span. The SDK hands tool calls only the
// request's headers, not its context, so the span's own trace context is
// written back into the headers the SDK sees, where traceRequests picks it
// up; the caller's header map is cloned, never changed.
func traceHTTP(tracer trace.Tracer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := traceContext.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, r.Method+" /mcp", trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path)))
		defer span.End()
		if !span.SpanContext().IsValid() && r.Header.Get("traceparent") == "" && r.Header.Get("tracestate") == "" {
			// Nothing to hand on (no tracer, no caller's trace): skip copying
			// the request's headers, a cost paid on every MCP message.
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		r = r.Clone(ctx)
		r.Header.Del("traceparent")
		r.Header.Del("tracestate")
		traceContext.Inject(ctx, propagation.HeaderCarrier(r.Header))
		next.ServeHTTP(w, r)
	})
}

// traceRequests is the SDK middleware that gives every MCP request a span,
// child of the HTTP request that carried it (stdio requests carry no
// headers and start their own trace). The tool handler runs in that span's
// context, so the API calls it makes continue the same trace.
func traceRequests(tracer trace.Tracer) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if extra := req.GetExtra(); extra != nil && extra.Header != nil {
				ctx = traceContext.Extract(ctx, propagation.HeaderCarrier(extra.Header))
			}
			name := method
			attrs := []attribute.KeyValue{attribute.String("mcp.method.name", method)}
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
				name += " " + p.Name
				attrs = append(attrs, attribute.String("gen_ai.tool.name", p.Name))
			}
			ctx, span := tracer.Start(ctx, name, trace.WithAttributes(attrs...))
			defer span.End()
			res, err := next(ctx, method, req)
			if err != nil {
				span.SetStatus(codes.Error, err.Error())
			}
			return res, err
		}
	}
}

// tracePropagation is the Connect client interceptor that makes every API
// call a client span of the calling tool's trace and sends its traceparent,
// which the API's telemetry interceptor continues.
type tracePropagation struct {
	tracer trace.Tracer
}

// WrapUnary implements connect.Interceptor.
func (t tracePropagation) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if !req.Spec().IsClient {
			return next(ctx, req)
		}
		ctx, span := t.tracer.Start(ctx, strings.TrimPrefix(req.Spec().Procedure, "/"), trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("rpc.system", "connect_rpc")))
		traceContext.Inject(ctx, propagation.HeaderCarrier(req.Header()))
		defer span.End()
		res, err := next(ctx, req)
		if err != nil {
			span.SetAttributes(attribute.String("rpc.connect_rpc.error_code", connect.CodeOf(err).String()))
		}
		return res, err
	}
}

// WrapStreamingClient implements connect.Interceptor: a stream (the tools
// open none today) carries the calling tool's trace context as is.
func (t tracePropagation) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		traceContext.Inject(ctx, propagation.HeaderCarrier(conn.RequestHeader()))
		return conn
	}
}

// WrapStreamingHandler implements connect.Interceptor (no-op: this service
// is the API's client, not a Connect server).
func (t tracePropagation) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}
