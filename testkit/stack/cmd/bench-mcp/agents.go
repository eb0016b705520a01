package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/roadbook/roadbook/auth"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connectAgents opens n MCP sessions (protocol 2025-11-25, like today's
// hosts), each with its own agent token, sharing the stack's connection pool.
func (st *benchStack) connectAgents(ctx context.Context, n int) ([]*mcp.ClientSession, error) {
	var out []*mcp.ClientSession
	for i := range n {
		tok, err := token(st.agents, st.resource)
		if err != nil {
			return out, err
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "bench-mcp", Version: "1"}, nil)
		tr := &mcp.StreamableClientTransport{Endpoint: st.resource, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: bearer{token: tok, next: st.hc.Transport}}}
		s, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			return out, fmt.Errorf("session %d: %w", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// sessions opens n MCP sessions with the chosen client and returns the
// get_trip call of worker i and the function that closes them all.
func (st *benchStack) sessions(ctx context.Context, client string, n int, tripID string, stages int) (func(context.Context, int) error, func(), error) {
	if client == "sdk" {
		agents, err := st.connectAgents(ctx, n)
		closeAll := func() {
			for _, a := range agents {
				_ = a.Close()
			}
		}
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		return func(ctx context.Context, w int) error { return getTripMCP(ctx, agents[w], tripID, stages) }, closeAll, nil
	}
	agents, err := st.connectWire(ctx, n)
	closeAll := func() {
		for _, a := range agents {
			a.close()
		}
	}
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return func(ctx context.Context, w int) error { return agents[w].getTrip(ctx, tripID, stages) }, closeAll, nil
}

// getTripMCP calls get_trip once and checks the answer is the whole trip:
// structured content with every stage, and text that is JSON. (The text is
// only checked to be valid JSON — decoding it again into a struct cost the
// load generator ~4 % of the shared CPU, which the direct phase's check of
// a decoded message does not pay; the client has already decoded the
// structured content.)
func getTripMCP(ctx context.Context, s *mcp.ClientSession, tripID string, stages int) error {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "get_trip", Arguments: map[string]any{"tripId": tripID}})
	if err != nil {
		return err
	}
	if len(res.Content) != 1 {
		return fmt.Errorf("get_trip: %d content blocks", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return fmt.Errorf("get_trip: content %T", res.Content[0])
	}
	if res.IsError {
		return fmt.Errorf("get_trip: %s", text.Text)
	}
	if !json.Valid([]byte(text.Text)) {
		return fmt.Errorf("get_trip: the text is not JSON")
	}
	d, _ := res.StructuredContent.(map[string]any)
	if got, _ := d["stages"].([]any); len(got) != stages {
		return fmt.Errorf("get_trip: %d stages in structured content, want %d", len(got), stages)
	}
	return nil
}

// direct calls the API the way the MCP service does (Connect, binary
// protobuf, no gzip: mcpserver turns it off between the two), with a user
// token instead of a service credential.
type direct struct {
	client roadbookv1connect.TripServiceClient
	token  string
}

func (st *benchStack) directClient() (*direct, error) {
	tok, err := token(st.users, auth.DefaultAudience)
	if err != nil {
		return nil, err
	}
	return &direct{client: roadbookv1connect.NewTripServiceClient(st.hc, st.apiURL), token: tok}, nil
}

func (d *direct) getTrip(ctx context.Context, tripID string, stages int) error {
	req := connect.NewRequest(&roadbookv1.GetTripRequest{TripId: tripID})
	req.Header().Set("Authorization", "Bearer "+d.token)
	resp, err := d.client.GetTrip(ctx, req)
	if err != nil {
		return err
	}
	if n := len(resp.Msg.GetTrip().GetStages()); n != stages {
		return fmt.Errorf("GetTrip: %d stages, want %d", n, stages)
	}
	return nil
}
