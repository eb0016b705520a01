package stack_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// apiCalls records the headers of every request the API receives.
// and how often each path was called.
type apiCalls struct {
	mu      sync.Mutex
	headers []http.Header
	paths   map[string]int
}

func (a *apiCalls) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.headers = append(a.headers, r.Header.Clone())
		if a.paths == nil {
			a.paths = map[string]int{}
		}
		a.paths[r.URL.Path]++
		a.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// of is how often the API was called at path so far.
func (a *apiCalls) of(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.paths[path]
}

// inTrace returns the headers of the API calls whose traceparent names
// traceID.
func (a *apiCalls) inTrace(traceID string) []http.Header {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []http.Header
	for _, h := range a.headers {
		if parts := strings.Split(h.Get("traceparent"), "-"); len(parts) == 4 && parts[1] == traceID {
			out = append(out, h)
		}
	}
	return out
}

// headerTransport adds fixed headers to every request an MCP client sends.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}

// spanByID finds one of the MCP service's spans (started: the span of the
// /mcp request may end just after the client has read its answer).
func spanByID(t *testing.T, h *harness, id trace.SpanID) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range h.spans.Started() {
		if s.SpanContext().SpanID() == id {
			return s
		}
	}
	require.FailNow(t, "no span "+id.String())
	return nil
}

func TestTracePropagation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	agentToken := h.token(t, "tracy")
	c := mcp.NewClient(&mcp.Implementation{Name: "roadbook-test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: h.url + "/mcp", DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: headerTransport{next: http.DefaultTransport, headers: map[string]string{
			"Authorization": "Bearer " + agentToken,
			"traceparent":   "00-" + callerTrace + "-" + callerSpan + "-01",
		}}}}
	s, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })

	ok(t, s, "list_trips", `{}`)
	calls := h.apiCalls.inTrace(callerTrace)
	require.NotEmpty(t, calls, "list_trips calls the API in the caller's trace")

	t.Run("each API call continues the trace of the /mcp request through the service's own spans", func(t *testing.T) {
		for _, got := range calls {
			parts := strings.Split(got.Get("traceparent"), "-")
			apiParent, err := trace.SpanIDFromHex(parts[2])
			require.NoError(t, err)
			require.NotEqual(t, callerSpan, apiParent.String(), "the API's parent is the MCP service's span, not the agent host's")

			client := spanByID(t, h, apiParent)
			require.Equal(t, "roadbook.v1.TripService/ListTrips", client.Name())
			require.Equal(t, trace.SpanKindClient, client.SpanKind())
			tool := spanByID(t, h, client.Parent().SpanID())
			require.Equal(t, "tools/call list_trips", tool.Name())
			post := spanByID(t, h, tool.Parent().SpanID())
			require.Equal(t, "POST /mcp", post.Name())
			require.Equal(t, trace.SpanKindServer, post.SpanKind())
			require.Equal(t, callerSpan, post.Parent().SpanID().String())
			require.True(t, post.Parent().IsRemote())
			for _, sp := range []sdktrace.ReadOnlySpan{client, tool, post} {
				require.Equal(t, callerTrace, sp.SpanContext().TraceID().String(), sp.Name())
			}
		}
	})
	t.Run("the agent's bearer token is not what reaches the API", func(t *testing.T) {
		for _, got := range calls {
			authz := got.Get("Authorization")
			require.True(t, strings.HasPrefix(authz, "Bearer "), authz)
			require.NotContains(t, authz, agentToken)
		}
	})
}
