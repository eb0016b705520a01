package stack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/mcp/mcpserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/testkit/stack"
	"github.com/roadbook/roadbook/tripstore"
)

// t0 is 10 s into a 5-minute idempotency window.
var t0 = time.Date(2030, 5, 1, 12, 0, 10, 0, time.UTC)

// harness is a stack (package stack) seen by the MCP tests: the real API on
// PostgreSQL and NATS, the MCP service in front of it, and what the tests
// read behind their backs.
type harness struct {
	clock    *testkit.Clock
	store    eventstore.Store
	trips    *tripstore.Store
	mcp      *mcpserver.Server
	url      string
	stack    *stack.Stack
	resource string
	// apiCalls are the requests the API received; spans are the MCP
	// service's ended spans.
	apiCalls *apiCalls
	spans    *tracetest.SpanRecorder
}

func newHarness(t *testing.T) *harness { return newHarnessWith(t, false) }

// newHarnessWith also runs the real worker (relay, import, stages and
// analysis consumers) on the same store and NATS when worker is true.
func newHarnessWith(t *testing.T, worker bool) *harness {
	t.Helper()
	clk := testkit.NewClock(t0)
	calls := &apiCalls{}
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	st := stack.New(t, stack.Options{Worker: worker, Clock: clk.Now, APIHandler: calls.record,
		MCP: func(c *mcpserver.Config) { c.TracerProvider = tp }})
	return &harness{clock: clk, store: st.Store, trips: st.Trips, mcp: st.MCP, url: st.MCPURL, stack: st, resource: st.Resource,
		apiCalls: calls, spans: spans}
}

// token mints an agent token for user with scopes, for this resource.
func (h *harness) token(t *testing.T, user string, scopes ...auth.Scope) string {
	t.Helper()
	tok, err := h.stack.AgentToken(user, scopes...)
	require.NoError(t, err)
	return tok
}

type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// session connects an MCP client (protocol 2025-11-25, like today's hosts)
// as user.
func (h *harness) session(t *testing.T, user string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "roadbook-test", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: h.url + "/mcp", DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: bearerTransport{token: h.token(t, user), next: http.DefaultTransport}}}
	s, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// result is a tool result as an agent reads it.
type result struct {
	IsError bool
	Text    string
	Data    map[string]any
	Err     map[string]any
}

// call calls tool with raw JSON arguments (byte for byte as given).
func call(t *testing.T, s *mcp.ClientSession, tool string, args string) result {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	require.NoError(t, err, "protocol error from %s", tool)
	require.Len(t, res.Content, 1)
	text := res.Content[0].(*mcp.TextContent).Text
	out := result{IsError: res.IsError, Text: text}
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &v), text)
	if res.IsError {
		require.Nil(t, res.StructuredContent, "errors carry no structured content")
		out.Err, _ = v["error"].(map[string]any)
		require.NotNil(t, out.Err, text)
	} else {
		out.Data = v
	}
	return out
}

// ok calls tool and requires success.
func ok(t *testing.T, s *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	r := call(t, s, tool, args)
	require.False(t, r.IsError, "%s: %s", tool, r.Text)
	return r.Data
}

// fails calls tool and requires an error with code.
func fails(t *testing.T, s *mcp.ClientSession, tool, args, code string) map[string]any {
	t.Helper()
	r := call(t, s, tool, args)
	require.True(t, r.IsError, "%s unexpectedly succeeded: %s", tool, r.Text)
	require.Equal(t, code, r.Err["code"], r.Text)
	return r.Err
}

func gpxFixture(t *testing.T) string {
	t.Helper()
	return string(fixtures.Read(t, fixtures.OsloTrondheim))
}

// args builds a JSON argument object.
func args(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

// recordStages records the trip's stages with the stages worker's own use
// case (testkit.ComputeStages): the API and the store are real, only the
// worker's trigger is the test.
func (h *harness) recordStages(t *testing.T, id string) {
	t.Helper()
	testkit.ComputeStages(t, h.trips, uuid.MustParse(id))
}

// dayTrip creates a trip from the GPX fixture through s and records its
// days, so it is ready at version 1 for the writes that need days.
func (h *harness) dayTrip(t *testing.T, s *mcp.ClientSession) string {
	t.Helper()
	id := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t), "title": uuid.NewString()}))["tripId"].(string)
	h.recordStages(t, id)
	return id
}

// confirmed calls a confirmed tool twice, the second time with the token
// its first answer offered (next), and returns the act's answer.
func confirmed(t *testing.T, s *mcp.ClientSession, tool, arguments string) map[string]any {
	t.Helper()
	offer := ok(t, s, tool, arguments)
	return ok(t, s, tool, args(t, offer["next"].(map[string]any)["arguments"].(map[string]any)))
}

// streams counts user's trip streams in the store.
func (h *harness) streams(t *testing.T, user string) int {
	t.Helper()
	page, err := h.store.ListStreams(context.Background(), eventstore.ListQuery{Owner: user, Limit: 500})
	require.NoError(t, err)
	n := 0
	for _, st := range page.Streams {
		if strings.HasPrefix(string(st.ID), "trip-") {
			n++
		}
	}
	return n
}

// version reads a trip's stream version from the store.
func (h *harness) version(t *testing.T, id string) int64 {
	t.Helper()
	st, err := h.store.Stream(context.Background(), tripstore.StreamID(uuid.MustParse(id)))
	require.NoError(t, err)
	return int64(st.Version)
}
