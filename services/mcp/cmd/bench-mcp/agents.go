package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/auth"
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
func (st *stack) connectAgents(ctx context.Context, n int) ([]*mcp.ClientSession, error) {
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

// getTripMCP calls get_trip once and checks the answer is the whole trip.
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
	var d struct {
		Stages []json.RawMessage `json:"stages"`
	}
	if err := json.Unmarshal([]byte(text.Text), &d); err != nil {
		return fmt.Errorf("get_trip: %w", err)
	}
	if len(d.Stages) != stages {
		return fmt.Errorf("get_trip: %d stages, want %d", len(d.Stages), stages)
	}
	return nil
}

// direct calls the API the way the MCP service does (Connect, binary
// protobuf), with a user token instead of a service credential.
type direct struct {
	client roadbookv1connect.TripServiceClient
	token  string
}

func (st *stack) directClient() (*direct, error) {
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
