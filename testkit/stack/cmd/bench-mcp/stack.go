package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/testkit/stack"
	"github.com/roadbook/roadbook/tripstore"
)

// benchUser owns the trip; every session and direct client acts for it.
const benchUser = "bench"

// benchStack is the API and the MCP service of package stack (loopback HTTP
// over one PostgreSQL schema and an embedded NATS, no worker), seen by the
// benchmark's clients.
type benchStack struct {
	*stack.Stack
	trips          *tripstore.Store
	apiURL, mcpURL string
	resource       string
	users, agents  *auth.HS256Issuer
	// hc carries every client call (sessions and direct clients alike), with
	// enough idle connections that no phase pays for connection churn.
	hc *http.Client
}

func startStack(ctx context.Context, clients int) (*benchStack, error) {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 4 * clients, MaxIdleConnsPerHost: 2 * clients, IdleConnTimeout: time.Minute}}
	s, err := stack.Start(ctx, stack.Options{MCPClient: hc})
	if err != nil {
		return nil, err
	}
	return &benchStack{Stack: s, trips: s.Trips, apiURL: s.APIURL, mcpURL: s.MCPURL, resource: s.Resource,
		users: s.Users, agents: s.Agents, hc: hc}, nil
}

// close stops the stack.
func (st *benchStack) close() { st.Close() }

// token mints a read-only token for benchUser with audience aud.
func token(iss *auth.HS256Issuer, aud string) (string, error) {
	tok, err := iss.Mint(auth.Claims{Subject: benchUser, Audience: []string{aud}, ExpiresAt: time.Now().Add(time.Hour),
		Scopes: []auth.Scope{auth.ScopeRead}})
	if err != nil {
		return "", fmt.Errorf("mint a token: %w", err)
	}
	return tok, nil
}
