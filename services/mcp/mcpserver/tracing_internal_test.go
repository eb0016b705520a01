package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace/noop"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

func TestTraceContextWithoutATracerProvider(t *testing.T) {
	t.Parallel()
	const incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tracer := noop.NewTracerProvider().Tracer(TracerName)

	// The API: it records the traceparent it receives.
	var (
		mu       sync.Mutex
		received []string
	)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received = append(received, r.Header.Get("traceparent"))
		mu.Unlock()
		http.Error(w, "not here", http.StatusNotFound)
	}))
	t.Cleanup(api.Close)
	trips := roadbookv1connect.NewTripServiceClient(api.Client(), api.URL, connect.WithInterceptors(tracePropagation{tracer: tracer}))

	// The /mcp handler: as the SDK does, it hands the request's headers to
	// the MCP middleware, whose handler calls the API.
	tool := traceRequests(tracer)(func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
		_, err := trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: "x"}))
		require.Error(t, err, "the test API answers nothing")
		return &mcp.CallToolResult{}, nil
	})
	handler := traceHTTP(tracer, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "get_trip"}, Extra: &mcp.RequestExtra{Header: r.Header}}
		_, err := tool(r.Context(), "tools/call", req)
		require.NoError(t, err)
	}))

	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("traceparent", incoming)
	before := r.Header.Clone()
	handler.ServeHTTP(httptest.NewRecorder(), r)

	require.Equal(t, []string{incoming}, received, "with no spans recorded, the caller's trace context reaches the API unchanged")
	require.Equal(t, before, r.Header, "the caller's request is not changed")
}
