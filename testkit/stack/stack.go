// Package stack runs Roadbook's whole stack in one process for tests and
// benchmarks: the Connect API, optionally the worker, and the MCP service in
// front of the API, on one PostgreSQL schema and one embedded NATS (package
// testkit), each service served over loopback HTTP, with the token issuers
// their verifiers trust.
//
// It is the one composition of the services outside cmd/roadbook, so it
// lives above them in a module of its own: the services' own tests import
// package testkit only and never another service. The tests that exercise
// the services together — an agent's tool call through the MCP service, the
// API and the worker — live beside it in this module.
package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/services/mcp/mcpserver"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

// PublicBaseURL is the API's share-link origin in every stack.
const PublicBaseURL = "https://roadbook.test"

// ServiceActor is the MCP service's actor name, trusted by the API.
const ServiceActor = "roadbook-mcp"

// Options choose what runs and adjust each service's Config before it is
// built. The zero value is the API and the MCP service without a worker.
type Options struct {
	// Worker runs the worker (relay, job consumer, geocoding responder).
	Worker bool
	// NoMCP leaves the MCP service out.
	NoMCP bool
	// Clock is every service's clock (default time.Now).
	Clock func() time.Time
	// API, WorkerConfig and MCP adjust the services' configurations after
	// the stack filled in its defaults (quiet loggers, the shared clock,
	// the store, NATS and the verifiers).
	API          func(*apiserver.Config)
	WorkerConfig func(*workerserver.Config)
	MCP          func(*mcpserver.Config)
	// APIHandler, when set, wraps the API's handler (to record requests).
	APIHandler func(http.Handler) http.Handler
	// MCPClient is the HTTP client the MCP service calls the API with
	// (default mcpserver's own).
	MCPClient *http.Client
}

// Stack is a running stack. Its fields are for tests to reach behind the
// services' backs: the raw store, the trip store over it, NATS.
type Stack struct {
	Store *postgres.Store
	Trips *tripstore.Store
	NATS  *testkit.NATSServer
	Conn  *nats.Conn

	API    *apiserver.Server
	APIURL string
	// Worker is nil unless Options.Worker.
	Worker *workerserver.Server
	// MCP is nil with Options.NoMCP; MCPURL is its origin and Resource the
	// audience agents' tokens name.
	MCP      *mcpserver.Server
	MCPURL   string
	Resource string

	// Users signs API tokens (audience auth.DefaultAudience), Agents MCP
	// tokens (audience Resource), Service the MCP service's credential.
	Users, Agents, Service *auth.HS256Issuer

	closers []func()
}

// New starts a stack for t, on a fresh schema and its own NATS; it stops
// with the test.
func New(t testing.TB, opts Options) *Stack {
	t.Helper()
	dir := t.TempDir()
	s, err := start(context.Background(), opts, testkit.SchemaURL(t), dir)
	if err != nil {
		t.Fatalf("stack: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a stack outside a test (the benchmarks) on a schema of its
// own, dropped by Close.
func Start(ctx context.Context, opts Options) (*Stack, error) {
	url, drop, err := pgtest.NewSchema(ctx, "stack")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "roadbook-stack-nats")
	if err != nil {
		drop()
		return nil, err
	}
	s, err := start(ctx, opts, url, dir)
	if err != nil {
		drop()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	s.closers = append([]func(){drop, func() { _ = os.RemoveAll(dir) }}, s.closers...)
	return s, nil
}

func start(ctx context.Context, opts Options, schemaURL, natsDir string) (s *Stack, err error) {
	s = &Stack{}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	quiet := slog.New(slog.DiscardHandler)
	if s.Store, err = postgres.Open(ctx, schemaURL); err != nil {
		return s, err
	}
	s.closers = append(s.closers, s.Store.Close)
	if err = s.Store.Migrate(ctx); err != nil {
		return s, err
	}
	s.Trips = tripstore.New(s.Store, clock)
	if s.NATS, err = testkit.StartNATS(natsDir, -1); err != nil {
		return s, err
	}
	s.closers = append(s.closers, s.NATS.Stop)
	if s.Conn, err = testkit.Connect(s.NATS.URL()); err != nil {
		return s, err
	}
	s.closers = append(s.closers, s.Conn.Close)
	if err = s.issuers(); err != nil {
		return s, err
	}

	apiVerifier, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(s.Users.Key()),
		Services: auth.NewStaticKeys(s.Service.Key()), TrustedActors: []string{ServiceActor}, ServiceIssuer: ServiceActor})
	if err != nil {
		return s, err
	}
	apiCfg := apiserver.Config{Store: s.Store, NATS: s.Conn, Verifier: apiVerifier, PublicBaseURL: PublicBaseURL,
		Clock: clock, WatchPoll: 200 * time.Millisecond, Logger: quiet}
	if opts.API != nil {
		opts.API(&apiCfg)
	}
	if s.API, err = apiserver.New(apiCfg); err != nil {
		return s, err
	}
	var h http.Handler = s.API.Handler()
	if opts.APIHandler != nil {
		h = opts.APIHandler(h)
	}
	if s.APIURL, err = s.serve(h, nil); err != nil {
		return s, err
	}

	if opts.Worker {
		wcfg := workerserver.Config{Store: s.Store, NATS: s.Conn, Concurrency: 2, Clock: clock, LeaseTTL: 2 * time.Second,
			RelayPollInterval: 20 * time.Millisecond, Logger: quiet}
		if opts.WorkerConfig != nil {
			opts.WorkerConfig(&wcfg)
		}
		if s.Worker, err = workerserver.New(wcfg); err != nil {
			return s, err
		}
		wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan error, 1)
		go func() { done <- s.Worker.Run(wctx) }()
		s.closers = append(s.closers, func() { stop(); <-done })
	}

	if !opts.NoMCP {
		if err = s.startMCP(opts, clock, quiet); err != nil {
			return s, err
		}
	}
	return s, nil
}

// issuers builds the three token issuers (fixed keys: a stack is a test's).
func (s *Stack) issuers() error {
	var err error
	if s.Users, err = auth.NewHS256Issuer("users", []byte(strings.Repeat("u", 32)), "roadbook-test"); err != nil {
		return err
	}
	if s.Service, err = auth.NewHS256Issuer("mcp-1", []byte(strings.Repeat("s", 32)), ServiceActor); err != nil {
		return err
	}
	s.Agents, err = auth.NewHS256Issuer("agents", []byte(strings.Repeat("a", 32)), "https://idp.test")
	return err
}

// startMCP builds the MCP service on a listener of its own: its public URL
// (and so the audience of agents' tokens) must be known before it exists.
func (s *Stack) startMCP(opts Options, clock func() time.Time, log *slog.Logger) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.MCPURL = "http://" + ln.Addr().String()
	s.Resource = mcpserver.ResourceURL(s.MCPURL)
	agents, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(s.Agents.Key()), Audience: s.Resource})
	if err != nil {
		_ = ln.Close()
		return err
	}
	cfg := mcpserver.Config{
		APIBaseURL: s.APIURL, HTTPClient: opts.MCPClient, ServiceIssuer: s.Service, ServiceActor: ServiceActor,
		AgentVerifier: agents, AuthorizationServers: []string{"https://idp.test"},
		HMACKeys: map[string][]byte{"k1": []byte(strings.Repeat("h", 32))}, PublicBaseURL: s.MCPURL,
		Clock: clock, Logger: log,
	}
	if opts.MCP != nil {
		opts.MCP(&cfg)
	}
	if s.MCP, err = mcpserver.New(cfg); err != nil {
		_ = ln.Close()
		return err
	}
	_, err = s.serve(s.MCP, ln)
	return err
}

// serve serves h on ln (nil: a free loopback port) until Close, and returns
// its origin.
func (s *Stack) serve(h http.Handler, ln net.Listener) (string, error) {
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return "", err
		}
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	hs := &http.Server{Handler: h, Protocols: protocols, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	s.closers = append(s.closers, func() { _ = hs.Close() })
	return "http://" + ln.Addr().String(), nil
}

// Close stops everything in the reverse order of starting.
func (s *Stack) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// APIToken is a user token for the API with scopes (default read and
// write), valid for an hour of real time.
func (s *Stack) APIToken(user string, scopes ...auth.Scope) (string, error) {
	return mint(s.Users, user, auth.DefaultAudience, scopes)
}

// AgentToken is an agent's token for the MCP service, acting for user.
func (s *Stack) AgentToken(user string, scopes ...auth.Scope) (string, error) {
	if s.Resource == "" {
		return "", errors.New("stack: no MCP service in this stack")
	}
	return mint(s.Agents, user, s.Resource, scopes)
}

func mint(iss *auth.HS256Issuer, user, audience string, scopes []auth.Scope) (string, error) {
	if len(scopes) == 0 {
		scopes = []auth.Scope{auth.ScopeRead, auth.ScopeWrite}
	}
	tok, err := iss.Mint(auth.Claims{Subject: user, Audience: []string{audience}, ExpiresAt: time.Now().Add(time.Hour), Scopes: scopes})
	if err != nil {
		return "", fmt.Errorf("stack: mint a token: %w", err)
	}
	return tok, nil
}
