package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/planner"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/tripstore"
)

// Server is the API: an http.Handler for every route, and the http.Server
// that serves it on one port (HTTP/1.1 and unencrypted HTTP/2, so Connect,
// gRPC and gRPC-Web share it).
type Server struct {
	shared  *shared
	handler http.Handler
	// admin is the operator's routes (admin.go), for a listener of its own.
	admin    http.Handler
	http     *http.Server
	draining atomic.Bool
}

// New builds the API over cfg.
func New(cfg Config) (*Server, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	js, err := jetstream.New(cfg.NATS)
	if err != nil {
		return nil, fmt.Errorf("apiserver: jetstream: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lim, err := newLimiter(ctx, js, cfg.RateLimits, cfg.Clock, cfg.Logger)
	if err != nil {
		return nil, err
	}
	met, err := newMetrics(cfg.Registry)
	if err != nil {
		return nil, err
	}
	trips := tripstore.New(cfg.Store, cfg.Clock, tripstore.WithLogger(cfg.Logger))
	plan, err := planner.New(planner.Config{Trips: trips, Limits: limitsOf{lim, cfg.RateLimits}, Clock: cfg.Clock,
		IdempotencyTTL: cfg.IdempotencyTTL, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c := &shared{cfg: cfg, planner: plan, trips: trips, limits: lim, log: cfg.Logger, done: make(chan struct{}),
		watching: &watchers{limit: cfg.WatchPerUser}}
	s := &Server{shared: c}

	traced, err := tracing(cfg.TracerProvider)
	if err != nil {
		return nil, err
	}
	chain := append([]connect.Interceptor{traced, newTelemetry(cfg.Logger), met, auth.NewInterceptor(cfg.Verifier, cfg.Policy)},
		validation(cfg.Logger)...)
	interceptors := connect.WithInterceptors(chain...)
	small := connect.WithReadMaxBytes(maxMessageBytes)
	// Every Connect service sits behind the gate (gate.go): no body is read
	// before the caller is authenticated and the body's size is checked.
	g := newGate(cfg.Verifier, cfg.Policy, cfg.Logger)
	mux := http.NewServeMux()
	handle := func(path string, h http.Handler) { mux.Handle(path, g.wrap(h)) }
	handle(roadbookv1connect.NewTripServiceHandler(&tripService{c}, interceptors, small))
	// The upload alone decodes up to 42 MiB: its own handler, on its path
	// (the more specific pattern wins over the service's).
	_, upload := roadbookv1connect.NewTripServiceHandler(&tripService{c}, interceptors, connect.WithReadMaxBytes(maxUploadMessageBytes))
	handle(roadbookv1connect.TripServiceCreateTripFromUploadProcedure, upload)
	handle(roadbookv1connect.NewStageEditServiceHandler(&stageEditService{c}, interceptors, small))
	handle(roadbookv1connect.NewAccommodationServiceHandler(&accommodationService{c}, interceptors, small))
	handle(roadbookv1connect.NewShareServiceHandler(&shareService{c}, interceptors, small))
	handle(roadbookv1connect.NewPublicShareServiceHandler(&publicShareService{c}, interceptors, small))
	handle(roadbookv1connect.NewExportServiceHandler(&exportService{c}, interceptors, small))
	handle(roadbookv1connect.NewGeocodingServiceHandler(&geocodingService{c}, interceptors, small))
	handle(roadbookv1connect.NewAccountServiceHandler(&accountService{c}, interceptors, small))
	handle(roadbookv1connect.NewWatchServiceHandler(&watchService{c}, interceptors, small))

	services := []string{
		roadbookv1connect.TripServiceName, roadbookv1connect.StageEditServiceName,
		roadbookv1connect.AccommodationServiceName, roadbookv1connect.ShareServiceName,
		roadbookv1connect.PublicShareServiceName, roadbookv1connect.ExportServiceName,
		roadbookv1connect.GeocodingServiceName, roadbookv1connect.AccountServiceName,
		roadbookv1connect.WatchServiceName,
	}
	mux.Handle(grpchealth.NewHandler(grpchealth.NewStaticChecker(services...)))
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.ready)
	s.admin = adminRoutes(s, cfg.Registry, services)
	// Browser routes (share page, profile SVG) and CORS: sharepage_routes.go.
	browser, err := c.browserRoutes(mux)
	if err != nil {
		return nil, err
	}
	s.handler = browser

	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	s.http = &http.Server{
		Handler:           s.handler,
		Protocols:         protocols,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	return s, nil
}

// Handler is every public route of the API (for httptest servers and for
// composing with other handlers in one-process mode). /metrics and gRPC
// reflection are not among them: they are AdminHandler's.
func (s *Server) Handler() http.Handler { return s.handler }

// healthz answers 200 while the process lives (liveness).
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	_, _ = w.Write([]byte("ok\n"))
}

// Serve serves the API on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	err := s.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown drains: /readyz turns unready at once, in-flight calls (and
// WatchTrip streams, which end) finish, then the server stops.
func (s *Server) Shutdown(ctx context.Context) error {
	s.draining.Store(true)
	s.shared.closing()
	return s.http.Shutdown(ctx)
}

// ready answers 200 when PostgreSQL (the store) and NATS are reachable.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		http.Error(w, "draining", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if _, err := s.shared.cfg.Store.Stream(ctx, "readyz-probe"); err != nil && !isNotFound(err) {
		http.Error(w, "store unreachable", http.StatusServiceUnavailable)
		return
	}
	if !s.shared.cfg.NATS.IsConnected() {
		http.Error(w, "nats unreachable", http.StatusServiceUnavailable)
		return
	}
	if err := s.shared.cfg.NATS.FlushWithContext(ctx); err != nil {
		http.Error(w, "nats unreachable", http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}
