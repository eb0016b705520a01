package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/services/api/auth"
	"github.com/roadbook/roadbook/services/api/tripstore"
	"github.com/roadbook/roadbook/services/mcp/mcpserver"
)

// benchUser owns the trip; every session and direct client acts for it.
const benchUser = "bench"

// stack is the API and the MCP service on loopback HTTP over one
// PostgreSQL schema and an embedded NATS, and the issuers of their tokens.
type stack struct {
	trips          *tripstore.Store
	apiURL, mcpURL string
	resource       string
	users, agents  *auth.HS256Issuer
	// hc carries every client call (sessions and direct clients alike), with
	// enough idle connections that no phase pays for connection churn.
	hc      *http.Client
	closers []func()
}

func startStack(ctx context.Context, clients int) (st *stack, err error) {
	st = &stack{}
	defer func() {
		if err != nil {
			st.close()
		}
	}()
	dbURL, drop, err := pgtest.NewSchema(ctx, "bench_mcp")
	if err != nil {
		return nil, err
	}
	st.closers = append(st.closers, drop)
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	st.closers = append(st.closers, store.Close)
	if err := store.Migrate(ctx); err != nil {
		return nil, err
	}
	st.trips = tripstore.New(store, nil)

	dir, err := os.MkdirTemp("", "bench-mcp-nats")
	if err != nil {
		return nil, err
	}
	st.closers = append(st.closers, func() { _ = os.RemoveAll(dir) })
	ns, err := natsserver.NewServer(&natsserver.Options{Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		return nil, err
	}
	ns.Start()
	st.closers = append(st.closers, ns.Shutdown)
	if !ns.ReadyForConnections(10 * time.Second) {
		return nil, errors.New("nats did not start")
	}
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		return nil, err
	}
	st.closers = append(st.closers, nc.Close)

	if st.users, err = auth.NewHS256Issuer("users", []byte(strings.Repeat("u", 32)), "roadbook-bench"); err != nil {
		return nil, err
	}
	service, err := auth.NewHS256Issuer("mcp", []byte(strings.Repeat("s", 32)), "roadbook-mcp")
	if err != nil {
		return nil, err
	}
	if st.agents, err = auth.NewHS256Issuer("agents", []byte(strings.Repeat("a", 32)), "roadbook-bench-idp"); err != nil {
		return nil, err
	}
	apiVerifier, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(st.users.Key()),
		Services: auth.NewStaticKeys(service.Key()), TrustedActors: []string{"roadbook-mcp"}})
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	api, err := apiserver.New(apiserver.Config{Store: store, NATS: nc, Verifier: apiVerifier, Logger: quiet})
	if err != nil {
		return nil, err
	}
	apiLn, err := st.serve(api.Handler())
	if err != nil {
		return nil, err
	}
	st.apiURL = "http://" + apiLn

	// The MCP server's URL must be known before it is built (audience).
	mcpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	st.mcpURL = "http://" + mcpLn.Addr().String()
	st.resource = mcpserver.ResourceURL(st.mcpURL)
	agentVerifier, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(st.agents.Key()), Audience: st.resource})
	if err != nil {
		return nil, err
	}
	st.hc = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 4 * clients, MaxIdleConnsPerHost: 2 * clients, IdleConnTimeout: time.Minute}}
	srv, err := mcpserver.New(mcpserver.Config{
		APIBaseURL: st.apiURL, HTTPClient: st.hc, ServiceIssuer: service, AgentVerifier: agentVerifier,
		HMACKeys: map[string][]byte{"k1": []byte(strings.Repeat("h", 32))}, PublicBaseURL: st.mcpURL, Logger: quiet,
	})
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(mcpLn) }()
	st.closers = append(st.closers, func() { _ = hs.Close() })
	return st, nil
}

// serve serves h on a free loopback port and returns its address.
func (st *stack) serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	st.closers = append(st.closers, func() { _ = hs.Close() })
	return ln.Addr().String(), nil
}

// close stops everything startStack started, in reverse order.
func (st *stack) close() {
	for i := len(st.closers) - 1; i >= 0; i-- {
		st.closers[i]()
	}
	st.closers = nil
}

// token mints a read-only token for benchUser with audience aud.
func token(iss *auth.HS256Issuer, aud string) (string, error) {
	tok, err := iss.Mint(auth.Claims{Subject: benchUser, Audience: []string{aud}, ExpiresAt: time.Now().Add(time.Hour),
		Scopes: []auth.Scope{auth.ScopeRead}})
	if err != nil {
		return "", fmt.Errorf("mint a token: %w", err)
	}
	return tok, nil
}
