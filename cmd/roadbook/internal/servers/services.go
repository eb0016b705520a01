// Package servers runs Roadbook's services from the command line:
// `roadbook api`, `worker` and `mcp` as the containers run them (PostgreSQL,
// NATS, an OIDC issuer; every flag defaulting to its ROADBOOK_* variable),
// `roadbook migrate`, and `roadbook dev`, all three in one process on an
// embedded store and NATS. Each serves its health, readiness and metrics on
// its one port (the API's metrics and reflection on a separate admin port)
// and drains on SIGTERM.
package servers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/envflag"
	"github.com/roadbook/roadbook/eventstore/feedwake"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/services/api/planner"
	"github.com/roadbook/roadbook/services/worker/workerserver"
)

// serviceFlags are the settings every container command shares.
type serviceFlags struct {
	addr, logLevel string
	shutdown       time.Duration
}

// register adds the shared flags, defaulting to their ROADBOOK_* variables.
func (s *serviceFlags) register(fs interface {
	StringVar(p *string, name, value, usage string)
	DurationVar(p *time.Duration, name string, value time.Duration, usage string)
}, defAddr string, defShutdown time.Duration) {
	fs.StringVar(&s.addr, "http-addr", defAddr, "listen address of the service's one port ($ROADBOOK_HTTP_ADDR)")
	fs.StringVar(&s.logLevel, "log-level", "info", "debug, info, warn or error ($ROADBOOK_LOG_LEVEL)")
	fs.DurationVar(&s.shutdown, "shutdown-timeout", defShutdown, "how long a SIGTERM drain may take ($ROADBOOK_SHUTDOWN_TIMEOUT)")
}

// connectNATS connects with endless reconnects: a NATS restart must not
// kill a replica, readiness reports the outage instead.
func connectNATS(url, name string, log *slog.Logger) (*nats.Conn, error) {
	nc, err := nats.Connect(url, nats.Name(name), nats.MaxReconnects(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { log.Warn("nats disconnected", slog.Any("error", err)) }),
		nats.ReconnectHandler(func(*nats.Conn) { log.Info("nats reconnected") }))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", redactURL(url), err)
	}
	return nc, nil
}

// RunAPI is `roadbook api`: the Connect API on PostgreSQL and NATS.
func RunAPI(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := envflag.New("api", stderr)
	var sf serviceFlags
	sf.register(fs, ":8080", 45*time.Second)
	dbURL := envflag.Secret(fs, "database-url", "PostgreSQL URL ($ROADBOOK_DATABASE_URL)")
	natsURL := fs.String("nats-url", nats.DefaultURL, "NATS URL ($ROADBOOK_NATS_URL)")
	baseURL := fs.String("public-base-url", "", "public base URL, for share links ($ROADBOOK_PUBLIC_BASE_URL)")
	issuer := fs.String("jwt-issuer", "", "the `iss` user tokens must carry ($ROADBOOK_JWT_ISSUER)")
	jwks := fs.String("jwks-url", "", "JWKS of the user token issuer ($ROADBOOK_JWKS_URL)")
	aud := fs.String("api-audience", auth.DefaultAudience, "audience API tokens must name ($ROADBOOK_API_AUDIENCE)")
	svcKey := envflag.Secret(fs, "mcp-service-key", "HS256 key of the MCP service's credentials; empty: no service may act for users ($ROADBOOK_MCP_SERVICE_KEY)")
	svcKeyID := fs.String("mcp-service-key-id", "roadbook-mcp-1", "kid of the MCP service key ($ROADBOOK_MCP_SERVICE_KEY_ID)")
	adminAddr := fs.String("admin-addr", "127.0.0.1:9091", "listen address of /metrics, gRPC reflection and the probes, kept off the public port ($ROADBOOK_ADMIN_ADDR)")
	pageKey := envflag.Secret(fs, "page-token-key", "HMAC key of ListTrips page tokens, >= 32 bytes, the same on every replica; empty: a random key per process, so a page token only works on the replica that issued it ($ROADBOOK_PAGE_TOKEN_KEY)")
	allowExample := registerAllowExample(fs)
	profiles := fs.Bool("pprof", false, "serve Go's /debug/pprof/ on the admin port, to diagnose; never on a public port ($ROADBOOK_PPROF)")
	hops := fs.Int("trusted-proxy-hops", 0, "reverse proxies in front of the API, each appending to X-Forwarded-For; public share reads "+
		"are limited per the address the outermost one saw (the Nth entry from the right); 0: per TCP peer, the header ignored ($ROADBOOK_TRUSTED_PROXY_HOPS)")
	var pf plannerFlags
	pf.register(fs, true)
	if err := envflag.Parse(fs, args); err != nil {
		return err
	}
	if *hops < 0 {
		return errors.New("--trusted-proxy-hops must be 0 or more")
	}
	app, err := planner.Handler(pf.config(*issuer))
	if err != nil {
		return err
	}
	// --jwt-issuer is required: without it a token of any issuer the JWKS
	// holds keys for would do (roadbook dev pins its own issuer).
	if err := envflag.Required([3]string{*dbURL, "database-url", "ROADBOOK_DATABASE_URL"}, [3]string{*jwks, "jwks-url", "ROADBOOK_JWKS_URL"},
		[3]string{*issuer, "jwt-issuer", "ROADBOOK_JWT_ISSUER"}); err != nil {
		return err
	}
	if err := refuseExampleSecrets(*allowExample, [2]string{"mcp-service-key", *svcKey}, [2]string{"page-token-key", *pageKey}); err != nil {
		return err
	}
	pageTokens, err := pageTokenKey(*pageKey)
	if err != nil {
		return err
	}
	log, err := newLogger(sf.logLevel, stderr)
	if err != nil {
		return err
	}
	if pageTokens == nil {
		log.Warn("no --page-token-key: ListTrips page tokens only work on this replica")
	}
	tr, err := setupTracing(ctx, "roadbook-api", log)
	if err != nil {
		return err
	}
	defer flushTracing(tr, log)
	var svc *auth.Key
	if *svcKey != "" {
		k, err := serviceKey(*svcKeyID, *svcKey)
		if err != nil {
			return err
		}
		svc = &k
	}
	userKeys, err := auth.NewJWKS(*jwks, jwksOptions(ctx, log))
	if err != nil {
		return err
	}
	verifier, err := apiVerifier(userKeys, *issuer, svc, *aud)
	if err != nil {
		return err
	}
	store, err := postgres.Open(ctx, *dbURL)
	if err != nil {
		return fmt.Errorf("open the event store: %w", err)
	}
	defer store.Close()
	nc, err := connectNATS(*natsURL, "roadbook-api", log)
	if err != nil {
		return err
	}
	defer nc.Close()
	// The relay runs in the worker processes: tell it of every commit, so
	// that it relays a create at once instead of at its next poll. The
	// announcer outlives the drain, whose last writes need announcing too.
	announcer, err := feedwake.NewAnnouncer(nc, store)
	if err != nil {
		return err
	}
	actx, stopAnnouncing := context.WithCancel(context.WithoutCancel(ctx))
	announced := make(chan struct{})
	go func() { announcer.Run(actx); close(announced) }()
	defer func() { stopAnnouncing(); <-announced }()
	reg := processRegistry()
	reg.MustRegister(workerserver.FeedAnnouncements(announcer))
	api, err := apiserver.New(apiserver.Config{Store: store, NATS: nc, Verifier: verifier, PublicBaseURL: *baseURL,
		TrustedProxyHops: *hops, Logger: log, Registry: reg, TracerProvider: tr.Provider, PageTokenKey: pageTokens})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", sf.addr)
	if err != nil {
		return err
	}
	adminLn, err := net.Listen("tcp", *adminAddr)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("admin listener: %w", err)
	}
	log.Info("api listening", slog.String("addr", ln.Addr().String()), slog.String("admin_addr", adminLn.Addr().String()))
	served := h2cServer(withPlanner(api.Handler(), app, nil))
	// The operator's routes on their own port (AdminHandler): h2c too, for
	// gRPC reflection.
	adminHandler := api.AdminHandler()
	if *profiles {
		adminHandler = withPprof(adminHandler)
	}
	admin := h2cServer(adminHandler)
	adminErr := make(chan error, 1)
	go func() { adminErr <- serveErr(admin.Serve(adminLn)) }()
	serve := func(ln net.Listener) error { return serveErr(served.Serve(ln)) }
	return serveUntilDone(ctx, log, sf.shutdown, serve, func(ctx context.Context) error {
		// The admin port goes last: /readyz there reports the drain.
		err := errors.Join(api.Shutdown(ctx), served.Shutdown(ctx))
		return errors.Join(err, admin.Shutdown(ctx), <-adminErr)
	}, ln)
}

// serveUntilDone serves on ln until ctx ends (SIGTERM), then drains within
// timeout: the server's own Shutdown turns readiness off first.
func serveUntilDone(ctx context.Context, log *slog.Logger, timeout time.Duration,
	serve func(net.Listener) error, shutdown func(context.Context) error, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("draining", slog.Duration("timeout", timeout))
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	err := errors.Join(shutdown(sctx), <-errc)
	log.Info("stopped", slog.Any("error", err))
	return err
}

// RunWorker is `roadbook worker`: the relay, the job consumers and the
// geocoding responder on PostgreSQL and NATS, with /healthz, /readyz and
// /metrics on its port. SIGTERM drains: readiness off, no new jobs,
// in-flight jobs finished and acked, exit 0.
func RunWorker(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := envflag.New("worker", stderr)
	var sf serviceFlags
	sf.register(fs, ":9090", 270*time.Second)
	dbURL := envflag.Secret(fs, "database-url", "PostgreSQL URL ($ROADBOOK_DATABASE_URL)")
	natsURL := fs.String("nats-url", nats.DefaultURL, "NATS URL ($ROADBOOK_NATS_URL)")
	concurrency := fs.Int("concurrency", 8, "jobs in flight in this process, every kind together ($ROADBOOK_WORKER_CONCURRENCY)")
	profiles := fs.Bool("pprof", false, "serve Go's /debug/pprof/ on the health port, to diagnose; never on a public port ($ROADBOOK_PPROF)")
	var wf workerFlags
	wf.register(fs)
	if err := envflag.Parse(fs, args); err != nil {
		return err
	}
	if err := envflag.Required([3]string{*dbURL, "database-url", "ROADBOOK_DATABASE_URL"}); err != nil {
		return err
	}
	log, err := newLogger(sf.logLevel, stderr)
	if err != nil {
		return err
	}
	tr, err := setupTracing(ctx, "roadbook-worker", log)
	if err != nil {
		return err
	}
	defer flushTracing(tr, log)
	store, err := postgres.Open(ctx, *dbURL)
	if err != nil {
		return fmt.Errorf("open the event store: %w", err)
	}
	defer store.Close()
	nc, err := connectNATS(*natsURL, "roadbook-worker", log)
	if err != nil {
		return err
	}
	defer nc.Close()
	reg := processRegistry()
	cfg := workerserver.Config{Store: store, NATS: nc, Logger: log, Registry: reg, Concurrency: *concurrency,
		DrainTimeout: sf.shutdown, TracerProvider: tr.Provider, CrossProcessWake: true}
	if err := wf.apply(&cfg); err != nil {
		return err
	}
	w, err := workerserver.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", sf.addr)
	if err != nil {
		return err
	}
	health := healthHandler(w.Ready, reg)
	if *profiles {
		health = withPprof(health)
	}
	stop := plainServer(ln, health)
	log.Info("worker health listening", slog.String("addr", ln.Addr().String()))
	runErr := w.Run(ctx) // returns after the drain
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err = errors.Join(runErr, stop(sctx))
	log.Info("stopped", slog.Any("error", err))
	return err
}

// RunMigrate is `roadbook migrate`: the PostgreSQL event store's embedded
// migrations, idempotent (the Kubernetes Job runs it before a rollout).
func RunMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := envflag.New("migrate", stderr)
	dbURL := envflag.Secret(fs, "database-url", "PostgreSQL URL ($ROADBOOK_DATABASE_URL)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error ($ROADBOOK_LOG_LEVEL)")
	if err := envflag.Parse(fs, args); err != nil {
		return err
	}
	if err := envflag.Required([3]string{*dbURL, "database-url", "ROADBOOK_DATABASE_URL"}); err != nil {
		return err
	}
	log, err := newLogger(*logLevel, stderr)
	if err != nil {
		return err
	}
	store, err := postgres.Open(ctx, *dbURL)
	if err != nil {
		return fmt.Errorf("open the event store: %w", err)
	}
	defer store.Close()
	if err := store.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	log.Info("migrations applied")
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}
