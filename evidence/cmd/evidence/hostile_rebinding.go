package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/roadbook/roadbook/evidence/cluster"
)

// devInstance is a `roadbook dev --no-auth` started beside the cluster: the
// one mode in which a request without a token acts as a user (the dev
// user), so the one a DNS-rebinding page would aim at.
type devInstance struct {
	proc           *cluster.Proc
	apiURL, mcpURL string
}

// startDev starts `roadbook dev --no-auth` on free loopback ports from the
// cluster's binary and waits for its dev.json.
func (h *hostileRun) startDev(ctx context.Context) (*devInstance, error) {
	dir := filepath.Join(h.c.Dir, "dev")
	p := &cluster.Proc{Name: "dev", Path: filepath.Join(h.c.Dir, "bin", "roadbook"),
		Args: []string{"dev", "--no-auth", "--data-dir", dir, "--api-addr", "127.0.0.1:0", "--mcp-addr", "127.0.0.1:0"},
		Log:  filepath.Join(h.c.Dir, "logs", "dev.log")}
	if err := p.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		b, err := os.ReadFile(filepath.Join(dir, "dev.json"))
		var info struct {
			APIURL string `json:"apiUrl"`
			MCPURL string `json:"mcpUrl"`
		}
		if err == nil && json.Unmarshal(b, &info) == nil && info.APIURL != "" {
			return &devInstance{proc: p, apiURL: info.APIURL, mcpURL: info.MCPURL}, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = p.Stop(syscall.SIGTERM, 10*time.Second)
	return nil, errors.New("roadbook dev --no-auth did not write dev.json within 60 s (logs/dev.log)")
}

// devCall is one request to the dev instance without a token, with the
// Host and Origin a rebinding page's browser would send ("" keeps the
// real ones).
func devCall(ctx context.Context, url, host, origin, contentType string, body []byte) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return 0, "transport: " + err.Error()
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(raw)
}

// rebinding: with --no-auth, requests carrying a rebound page's Host or
// Origin must be refused by the API and the MCP server alike, and the dev
// user's trips must be as they were.
func (h *hostileRun) rebinding(ctx context.Context, gpx []byte) {
	const category = "DNS rebinding (roadbook dev --no-auth)"
	dev, err := h.startDev(ctx)
	if err != nil {
		h.add(category, "start roadbook dev --no-auth", err.Error(), false)
		return
	}
	defer func() { _ = dev.proc.Stop(syscall.SIGTERM, 15*time.Second) }()
	api := func(method string) string { return dev.apiURL + "/roadbook.v1." + method }
	port := dev.apiURL[strings.LastIndex(dev.apiURL, ":")+1:]
	mcpPort := strings.TrimSuffix(dev.mcpURL[strings.LastIndex(dev.mcpURL, ":")+1:], "/mcp")
	// The dev user's trip, made the legitimate way (the listener's own Host).
	upload, _ := json.Marshal(map[string]any{"filename": "dev.gpx", "contentType": "application/gpx+xml", "content": base64.StdEncoding.EncodeToString(gpx)})
	if status, body := devCall(ctx, api("TripService/CreateTripFromUpload"), "", "", "application/json", upload); status != http.StatusOK {
		h.add(category, "set-up: the dev user's trip by a same-origin call", fmt.Sprintf("HTTP %d %s", status, truncate(body, 100)), false)
		return
	}
	count := func() int {
		status, body := devCall(ctx, api("TripService/ListTrips"), "", "", "application/json", []byte(`{}`))
		var l struct {
			Trips []json.RawMessage `json:"trips"`
		}
		if status != http.StatusOK || json.Unmarshal([]byte(body), &l) != nil {
			return -1
		}
		return len(l.Trips)
	}
	before := count()
	rebound := "rebound.evidence.example"
	cases := []struct {
		name, url, host, origin, ctype string
		body                           []byte
	}{
		{"API ListTrips, Host " + rebound, api("TripService/ListTrips"), rebound + ":" + port, "", "application/json", []byte(`{}`)},
		{"API ListTrips, same Host, Origin http://" + rebound, api("TripService/ListTrips"), "", "http://" + rebound + ":" + port, "application/json", []byte(`{}`)},
		{"API DeleteAccount, Host and Origin " + rebound, api("AccountService/DeleteAccount"), rebound + ":" + port, "http://" + rebound + ":" + port, "application/json", []byte(`{}`)},
		{"API CreateTripFromUpload, Host " + rebound, api("TripService/CreateTripFromUpload"), rebound + ":" + port, "", "application/json", upload},
		{"API planner page, Host " + rebound, dev.apiURL + "/app/", rebound + ":" + port, "", "text/plain", nil},
		{"API ListTrips, Origin of another loopback port", api("TripService/ListTrips"), "", "http://127.0.0.1:1", "application/json", []byte(`{}`)},
		{"MCP initialize, Host " + rebound, dev.mcpURL, rebound + ":" + mcpPort, "", "application/json", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)},
		{"MCP initialize, Origin http://" + rebound, dev.mcpURL, "", "http://" + rebound + ":" + mcpPort, "application/json", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)},
	}
	for _, c := range cases {
		status, body := devCall(ctx, c.url, c.host, c.origin, c.ctype, c.body)
		h.add(category, c.name, fmt.Sprintf("HTTP %d %s", status, truncate(strings.TrimSpace(body), 60)), status == http.StatusForbidden)
	}
	after := count()
	h.add(category, "the dev user's trips after the attacks (same-origin ListTrips)",
		fmt.Sprintf("%d before, %d after", before, after), before >= 1 && after == before)
}
