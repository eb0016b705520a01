package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The floor phase answers one question the ratio alone cannot: how much of
// the MCP layer's cost is the go-sdk's own. It serves a bare go-sdk server
// (same Streamable HTTP transport and session settings as mcpserver, no
// auth, no tracing, no registry) whose get_trip returns, without calling
// anything, the very digest bytes the real service answered with — built
// into a result exactly as the registry builds one (the JSON as text and as
// structured content). The same wire sessions drive it for the same time.
//
// Costs on these shared cores add up per call, so with R_floor that rate and
// R_api the direct API rate, no MCP service on this SDK can do better than
//
//	ratio_bound = R_floor / (R_floor + R_api)
//
// (each get_trip pays the SDK's floor and one API read). The distance between
// ratio and ratio_bound is Roadbook's own share: auth, the service credential,
// the digest conversion, tracing.

// floorServer serves the bare SDK get_trip answering digest, on loopback.
func floorServer(digest []byte) (url string, stop func(), err error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"tripId": {Type: "string"}},
		Required: []string{"tripId"}}
	srv.AddTool(&mcp.Tool{Name: "get_trip", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(digest)}},
			StructuredContent: json.RawMessage(digest),
		}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/mcp", func() { _ = hs.Close() }, nil
}

// measureFloor runs the floor phase: n wire sessions on the floor server for
// d, after a warm-up. It returns the calls per second and the latencies.
func (st *benchStack) measureFloor(ctx context.Context, n int, d time.Duration, digest []byte, tripID string, stages int) (float64, []time.Duration, error) {
	url, stop, err := floorServer(digest)
	if err != nil {
		return 0, nil, err
	}
	defer stop()
	sessions := make([]*wireSession, 0, n)
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	for i := range n {
		s := &wireSession{hc: st.hc, endpoint: url, token: "unused"}
		if err := s.initialize(ctx); err != nil {
			return 0, nil, fmt.Errorf("floor session %d: %w", i, err)
		}
		sessions = append(sessions, s)
	}
	call := func(ctx context.Context, w int) error { return sessions[w].getTrip(ctx, tripID, stages) }
	if _, _, err := load(ctx, n, 2*time.Second, call); err != nil {
		return 0, nil, fmt.Errorf("floor warm-up: %w", err)
	}
	count, lat, err := load(ctx, n, d, call)
	if err != nil {
		return 0, nil, fmt.Errorf("floor: %w", err)
	}
	return float64(count) / d.Seconds(), lat, nil
}
