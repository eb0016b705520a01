// Package agent is a scripted MCP agent: a go-sdk client over Streamable
// HTTP with protocol 2025-11-25 pinned (what today's hosts send), calls that
// record their latency and outcome per tool, and the script the soak runs
// (create from fixtures, follow hints, edit, analyze, delete).
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersion is the MCP revision every session asks for.
const ProtocolVersion = "2025-11-25"

// Result is a tool result as an agent reads it.
type Result struct {
	// IsError is the tool's isError.
	IsError bool
	// Code is error.code when IsError ("" otherwise).
	Code string
	// Data is the decoded JSON text of a success.
	Data map[string]any
	// Text is the raw text content.
	Text string
	// Latency is the call's wall time.
	Latency time.Duration
}

// Session is one connected agent.
type Session struct {
	s     *mcp.ClientSession
	stats *Stats
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Connect opens a session at endpoint with token; stats (may be nil)
// receives every call.
func Connect(ctx context.Context, endpoint, token string, hc *http.Client, stats *Stats) (*Session, error) {
	if hc == nil {
		hc = &http.Client{Timeout: 2 * time.Minute}
	}
	tr := hc.Transport
	if tr == nil {
		tr = http.DefaultTransport
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "roadbook-evidence", Version: "1"}, nil)
	t := &mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Timeout: hc.Timeout, Transport: bearer{token: token, next: tr}}}
	s, err := c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, err
	}
	return &Session{s: s, stats: stats}, nil
}

// Close ends the session.
func (s *Session) Close() error { return s.s.Close() }

// Raw is the go-sdk session (tools/list, initialize result).
func (s *Session) Raw() *mcp.ClientSession { return s.s }

// ErrProtocol wraps a JSON-RPC level failure (not a tool result).
var ErrProtocol = errors.New("agent: protocol error")

// Call calls tool with args (any JSON-marshalable value, or json.RawMessage
// sent byte for byte) and records the outcome.
func (s *Session) Call(ctx context.Context, tool string, args any) (Result, error) {
	start := time.Now()
	res, err := s.s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	r := Result{Latency: time.Since(start)}
	if err != nil && ctx.Err() != nil {
		// The caller ended the run while the call was in flight: not an
		// answer of the system, so not recorded.
		return r, fmt.Errorf("%w: %s: %v", ErrProtocol, tool, err)
	}
	if err != nil {
		s.stats.record(tool, r.Latency, "protocol", err.Error())
		return r, fmt.Errorf("%w: %s: %v", ErrProtocol, tool, err)
	}
	r.IsError = res.IsError
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			r.Text = tc.Text
		}
	}
	var v map[string]any
	_ = json.Unmarshal([]byte(r.Text), &v)
	message := ""
	if r.IsError {
		if e, ok := v["error"].(map[string]any); ok {
			r.Code, _ = e["code"].(string)
			message, _ = e["message"].(string)
		}
		if r.Code == "" {
			r.Code, message = "unknown", r.Text
		}
	} else {
		r.Data = v
	}
	s.stats.record(tool, r.Latency, r.Code, message)
	return r, nil
}
