package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	segjson "github.com/segmentio/encoding/json"
)

// protocolVersion is the MCP revision every session negotiates, as today's
// hosts do.
const protocolVersion = "2025-11-25"

// wireSession is a minimal MCP client over Streamable HTTP: the requests the
// go-sdk client makes (initialize, notifications/initialized, then
// tools/call with the Mcp-Session-Id and MCP-Protocol-Version headers), the
// SSE answer read until the response with the call's id, and the result
// decoded. It exists because the go-sdk client, as a load generator in the
// same process, spent about a fifth of the shared CPU decoding each answer
// into generic maps — CPU the server under test then lacked, while the
// direct phase's Connect client costs little. The -client sdk flag measures
// with the go-sdk client instead (docs/BENCHMARKS.md has both figures).
type wireSession struct {
	hc       *http.Client
	endpoint string
	token    string
	session  string
	nextID   atomic.Int64
	// buf is the SSE reading buffer, kept between calls: each session is
	// driven by one worker, and a fresh 64 KiB buffer per call was a tenth
	// of the load generator's allocations.
	buf []byte
}

// rpcResponse is a JSON-RPC response, decoded in one pass: the result
// fields of initialize and of a get_trip call (the digest's stages are
// counted, not kept), so the load generator decodes each answer once, as
// the direct phase's Connect client does.
type rpcResponse struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result struct {
		ProtocolVersion string `json:"protocolVersion"`
		IsError         bool   `json:"isError"`
		Content         []struct {
			Type string `json:"type"`
			// Text stays a raw JSON string: unescaping the digest's
			// text only to look at its first byte was about 40 % of
			// the load generator's decoding (2.2 s → 1.4 s).
			Text json.RawMessage `json:"text"`
		} `json:"content"`
		StructuredContent struct {
			Stages []struct{} `json:"stages"`
		} `json:"structuredContent"`
	} `json:"result"`
}

// firstText is the text of the result's first content block.
func (r rpcResponse) firstText() string {
	if len(r.Result.Content) == 0 {
		return ""
	}
	var text string
	if err := segjson.Unmarshal(r.Result.Content[0].Text, &text); err != nil {
		return string(r.Result.Content[0].Text)
	}
	return text
}

// bound keeps an error message short.
func bound(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// connectWire opens n wire sessions, each with its own agent token.
func (st *benchStack) connectWire(ctx context.Context, n int) ([]*wireSession, error) {
	out := make([]*wireSession, 0, n)
	for i := range n {
		tok, err := token(st.agents, st.resource)
		if err != nil {
			return out, err
		}
		s := &wireSession{hc: st.hc, endpoint: st.resource, token: tok}
		if err := s.initialize(ctx); err != nil {
			return out, fmt.Errorf("session %d: %w", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func (s *wireSession) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+s.token)
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
		req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	}
	return s.hc.Do(req)
}

func (s *wireSession) initialize(ctx context.Context) error {
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + protocolVersion +
		`","capabilities":{},"clientInfo":{"name":"bench-mcp-wire","version":"1"}}}`
	resp, err := s.post(ctx, []byte(init))
	if err != nil {
		return err
	}
	s.session = resp.Header.Get("Mcp-Session-Id")
	r, err := s.readResponse(resp, "0")
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if r.Error != nil || r.Result.ProtocolVersion != protocolVersion {
		return fmt.Errorf("initialize: protocol %q, want %q", r.Result.ProtocolVersion, protocolVersion)
	}
	if s.session == "" {
		return errors.New("initialize: no Mcp-Session-Id")
	}
	resp, err = s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("notifications/initialized: HTTP %d", resp.StatusCode)
	}
	return nil
}

// readResponse reads an answer to a POST — application/json, or an SSE
// stream whose data lines carry JSON-RPC messages — until the response with
// id, and closes the body. It decodes with segmentio/encoding/json (the
// decoder the go-sdk itself uses), which does the same checks as
// encoding/json with about two thirds of its CPU here (3.5 s → 2.2 s of a
// 20 s profile): the load generator shares the cores with the servers it
// measures, and the direct phase's protobuf decoding is cheap.
func (s *wireSession) readResponse(resp *http.Response, id string) (rpcResponse, error) {
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return rpcResponse{}, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	match := func(b []byte) (rpcResponse, bool, error) {
		var r rpcResponse
		if err := segjson.Unmarshal(b, &r); err != nil {
			return r, false, fmt.Errorf("not JSON-RPC: %w", err)
		}
		return r, string(r.ID) == id, nil
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return rpcResponse{}, err
		}
		r, ok, err := match(b)
		if err == nil && !ok {
			err = fmt.Errorf("response id %s, want %s", r.ID, id)
		}
		return r, err
	}
	sc := bufio.NewScanner(resp.Body)
	if s.buf == nil {
		s.buf = make([]byte, 64<<10)
	}
	sc.Buffer(s.buf, 4<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		case len(line) == 0 && len(data) > 0: // end of an event
			r, ok, err := match(data)
			if err != nil || ok {
				return r, err
			}
			data = data[:0]
		}
	}
	if err := sc.Err(); err != nil {
		return rpcResponse{}, err
	}
	return rpcResponse{}, fmt.Errorf("the stream ended without the response to %s", id)
}

// getTrip calls get_trip once and checks the answer the way getTripMCP does:
// one text block that is JSON, no error, every stage in structured content.
func (s *wireSession) getTrip(ctx context.Context, tripID string, stages int) error {
	_, err := s.getTripText(ctx, tripID, stages)
	return err
}

// digest is get_trip's text, the digest as tool JSON: what the floor
// server (floor.go) answers with.
func (s *wireSession) digest(ctx context.Context, tripID string, stages int) ([]byte, error) {
	r, err := s.getTripText(ctx, tripID, stages)
	if err != nil {
		return nil, err
	}
	return []byte(r.firstText()), nil
}

func (s *wireSession) getTripText(ctx context.Context, tripID string, stages int) (rpcResponse, error) {
	id := strconv.FormatInt(s.nextID.Add(1), 10)
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"get_trip","arguments":{"tripId":"` + tripID + `"}}}`
	resp, err := s.post(ctx, []byte(body))
	if err != nil {
		return rpcResponse{}, err
	}
	r, err := s.readResponse(resp, id)
	if err != nil {
		return r, fmt.Errorf("get_trip: %w", err)
	}
	if r.Error != nil {
		return r, fmt.Errorf("get_trip: JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	if r.Result.IsError {
		return r, fmt.Errorf("get_trip: %s", bound(r.firstText()))
	}
	if len(r.Result.Content) != 1 || r.Result.Content[0].Type != "text" || !bytes.HasPrefix(r.Result.Content[0].Text, []byte(`"{`)) {
		return r, fmt.Errorf("get_trip: want one text block holding a JSON object, got %d blocks", len(r.Result.Content))
	}
	if len(r.Result.StructuredContent.Stages) != stages {
		return r, fmt.Errorf("get_trip: %d stages in structured content, want %d", len(r.Result.StructuredContent.Stages), stages)
	}
	return r, nil
}

// close ends the session (DELETE), as a host does when it disconnects.
func (s *wireSession) close() {
	req, err := http.NewRequest(http.MethodDelete, s.endpoint, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Mcp-Session-Id", s.session)
	req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	if resp, err := s.hc.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
}
