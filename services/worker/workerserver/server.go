package workerserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/consumer"
	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/reconcile"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/tripstore"
)

// The interfaces the worker's collaborators implement (see package
// consumer for their contracts).
type (
	// RouteFetcher fetches URL-sourced routes (Komoot, Strava,
	// RideWithGPS).
	RouteFetcher = consumer.RouteFetcher
	// CollectionFetcher is optionally implemented by a RouteFetcher for
	// Komoot collections.
	CollectionFetcher = consumer.CollectionFetcher
	// Tour is one tour of a collection.
	Tour = consumer.Tour
	// Labeler labels stage ends with the configured geocoder.
	Labeler = consumer.Labeler
	// Provider is a data provider covering rule families.
	Provider = consumer.Provider
	// ProviderResult is what a provider found.
	ProviderResult = consumer.ProviderResult
	// ImportFailure is what fetcher errors implement to classify failures.
	ImportFailure = consumer.ImportFailure
	// StreamOptions shape the EVENTS and JOBS streams.
	StreamOptions = stream.Options
	// ConsumerOptions shape the durable consumers.
	ConsumerOptions = stream.ConsumerOptions
)

// DefaultStreamOptions and DefaultConsumerOptions are ARCHITECTURE §5's.
var (
	DefaultStreamOptions   = stream.DefaultOptions
	DefaultConsumerOptions = stream.DefaultConsumerOptions
)

// ErrInvalidConfig is matched by every refusal of a Config.
var ErrInvalidConfig = errors.New("workerserver: invalid config")

// Config is everything the worker needs. Store and NATS are required; the
// rest has working defaults: the gazetteer geocodes (labels and the API's
// searches), URL imports fetch from the production Komoot, Strava and
// RideWithGPS hosts, and the data providers are off (their rule families
// not_configured, accommodation searches recorded not_configured).
type Config struct {
	Store eventstore.Store
	NATS  *nats.Conn

	// Geocoder is "gazetteer" (default: offline, labels written with the
	// analysis), "nominatim" (NominatimURL; paced 1.1 s application-wide,
	// 24 h shared cache, labels filling in progressively) or "none" (labels
	// recorded unavailable). It also answers the API's SearchPlaces and
	// ReversePlace over NATS (roadbook.geocode.*).
	Geocoder string
	// NominatimURL is the Nominatim base URL (default the public instance).
	NominatimURL string
	// UserAgent identifies Roadbook to every third party (default
	// DefaultUserAgent; set a contact for the public Nominatim).
	UserAgent string
	// KomootURL, StravaURL and RideWithGPSURL replace the route sources'
	// production base URLs (the user's URL never chooses the host).
	KomootURL, StravaURL, RideWithGPSURL string
	// OverpassURL (OSM data: the traffic, surface, resupply, services,
	// crossings and culture rules, and accommodation searches), OpenMeteoURL
	// (weather) and OSRMURL (routed waypoint detours) are the data
	// providers' base URLs; empty turns one off (its families then read
	// not_configured, and detours stay estimated).
	OverpassURL, OpenMeteoURL, OSRMURL string
	// OpenMeteoArchiveURL is Open-Meteo's historical weather API, where the
	// typical conditions of dates beyond the 16-day forecast come from;
	// empty means the public archive when OpenMeteoURL is the public
	// forecast API, else OpenMeteoURL itself (a self-hosted Open-Meteo
	// serves both).
	OpenMeteoArchiveURL string
	// ProviderInterval spaces the requests to each data provider, for the
	// whole application (default 1 s).
	ProviderInterval time.Duration
	// AllowLoopbackFetch lets the route fetcher's SSRF guard dial the
	// configured source URLs when they are loopback IP literals (a test's
	// local fake server). Tests only: every other private or loopback
	// address stays refused.
	AllowLoopbackFetch bool

	// Fetcher replaces the URL route fetcher built from the URLs above.
	Fetcher RouteFetcher
	// Labeler replaces the labeler of Geocoder.
	Labeler Labeler
	// Providers are evaluated besides those built from the URLs above.
	Providers []Provider
	// Zones finds time zones for dated stages (built lazily when nil).
	Zones alert.ZoneFinder
	// Logger is slog JSON in production (nil: discard).
	Logger *slog.Logger
	// Registry receives the worker's metrics (nil: a private registry).
	Registry prometheus.Registerer
	// TracerProvider makes the relay's producer spans and each job's
	// consumer span, continuing the trace of the request that asked for the
	// work (traceparent in event metadata and NATS headers); the results a
	// job appends carry it onward. Nil: the otel global provider (a no-op
	// unless the process installed one).
	TracerProvider trace.TracerProvider
	// Concurrency is the pool size (and prefetch) of this process's one
	// consumer, over every job kind (default 8).
	Concurrency int
	// Clock is the injectable clock (nil: time.Now).
	Clock func() time.Time
	// Streams and Consumers default to ARCHITECTURE §5's settings
	// (Consumers.Durable: the consumer name, default "roadbook-worker").
	// Streams.Replicas (1 for one NATS server, 3 on a 3-node cluster) is
	// also the replica count of every KV bucket the worker creates.
	Streams   *StreamOptions
	Consumers *ConsumerOptions
	// Instance names this replica in the relay lease (default host-pid).
	Instance string
	// LeaseTTL bounds relay failover (default 10 s).
	LeaseTTL time.Duration
	// ReconcileDeadline and ReconcileInterval tune the reconciler
	// (defaults 2 min and 30 s).
	ReconcileDeadline, ReconcileInterval time.Duration
	// RelayPollInterval is the feed poll interval when nothing wakes the
	// relay (default 250 ms): a safety net under the store's in-process
	// wake-up and CrossProcessWake.
	RelayPollInterval time.Duration
	// CrossProcessWake announces the commits made through Store to the
	// other processes over core NATS and wakes this replica's relay on
	// theirs (eventstore/feedwake): an append by the API in another process,
	// or by another worker replica, is relayed at once instead of at the
	// next poll. For deployments of separate processes on PostgreSQL
	// (`roadbook worker`); in one process (`roadbook dev`) the store's own
	// wake-up reaches the relay and there is no one else to tell. Store must
	// implement eventstore.Notifier.
	CrossProcessWake bool
	// DrainTimeout bounds the graceful drain (default 30 s).
	DrainTimeout time.Duration
	// AfterPublish is a fault-injection hook for tests: it runs after a
	// relay batch was acked, before its cursor is saved.
	AfterPublish func(batch []eventstore.RecordedEvent)
}

// Server is a configured worker.
type Server struct {
	cfg   Config
	js    jetstream.JetStream
	trips *tripstore.Store
	// relay is set by Run; RelayActive reads it from other goroutines
	// (readiness, tests), so it is published atomically.
	relay    atomic.Pointer[relay.Relay]
	runner   *consumer.Runner
	advisory *consumer.MaxDeliveries
	recon    *reconcile.Reconciler
	tp       thirdParties
	respond  *geocode.Responder
	ready    atomic.Bool
	// draining is set once Run's drain began: readiness stays off.
	draining atomic.Bool
	metrics  *metrics
	leaseTTL time.Duration
	streams  StreamOptions
}

// New validates cfg and builds the worker; nothing runs until Run.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: Store is nil", ErrInvalidConfig)
	}
	if cfg.NATS == nil {
		return nil, fmt.Errorf("%w: NATS is nil", ErrInvalidConfig)
	}
	if cfg.CrossProcessWake && !isNotifier(cfg.Store) {
		return nil, fmt.Errorf("%w: CrossProcessWake needs a Store that wakes readers of its commits (eventstore.Notifier); %T does not", ErrInvalidConfig, cfg.Store)
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 8
	}
	if cfg.Concurrency < 1 || cfg.Concurrency > 256 {
		return nil, fmt.Errorf("%w: Concurrency %d is outside 1..256", ErrInvalidConfig, cfg.Concurrency)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Instance == "" {
		host, _ := os.Hostname()
		cfg.Instance = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	if cfg.LeaseTTL == 0 {
		cfg.LeaseTTL = 10 * time.Second
	}
	if cfg.LeaseTTL < time.Second {
		return nil, fmt.Errorf("%w: LeaseTTL %s is below 1s", ErrInvalidConfig, cfg.LeaseTTL)
	}
	streams := stream.DefaultOptions()
	if cfg.Streams != nil {
		streams = *cfg.Streams
	}
	if err := streams.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	cons := stream.DefaultConsumerOptions()
	if cfg.Consumers != nil {
		cons = *cfg.Consumers
	}
	if err := cons.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	reg := cfg.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("workerserver: metrics: %w", err)
	}
	base, err := jetstream.New(cfg.NATS, jetstream.WithPublishAsyncMaxPending(4096))
	if err != nil {
		return nil, fmt.Errorf("workerserver: jetstream: %w", err)
	}
	var js jetstream.JetStream = kvReplicas{JetStream: base, replicas: streams.Replicas}
	trips := tripstore.New(cfg.Store, cfg.Clock)
	tp, err := buildThirdParties(cfg, js, trips, reg)
	if err != nil {
		return nil, err
	}
	if cfg.Fetcher != nil {
		tp.fetcher = cfg.Fetcher
	}
	if cfg.Labeler != nil {
		tp.labeler = cfg.Labeler
	}
	workers, err := consumer.NewWorkers(consumer.WorkersConfig{
		Trips: trips, Fetcher: tp.fetcher, Labeler: tp.labeler, Providers: append(tp.providers, cfg.Providers...),
		Accommodations: tp.finder, Detours: tp.router, Zones: cfg.Zones, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	s := &Server{cfg: cfg, js: js, trips: trips, metrics: m, leaseTTL: cfg.LeaseTTL, streams: streams, tp: tp}
	s.runner, err = consumer.NewRunner(consumer.RunnerConfig{
		JS: js, Handler: workers, Concurrency: cfg.Concurrency, Consumer: cons,
		DrainTimeout: cfg.DrainTimeout, Logger: cfg.Logger, Observe: m.observeJob, TracerProvider: cfg.TracerProvider,
		Consuming: s.setReady,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if s.advisory, err = consumer.NewMaxDeliveries(cfg.NATS, js, workers, cons, cfg.Logger); err != nil {
		return nil, err
	}
	if tp.searcher != nil {
		if s.respond, err = geocode.NewResponder(cfg.NATS, tp.searcher, geocode.ResponderOptions{Logger: cfg.Logger}); err != nil {
			return nil, err
		}
	}
	s.recon, err = reconcile.New(reconcile.Config{
		Trips: trips, JS: js, Deadline: cfg.ReconcileDeadline, Interval: cfg.ReconcileInterval, Clock: cfg.Clock, Logger: cfg.Logger,
		Relabel: func(ctx context.Context, j job.Job, attempt string, stages []trip.Stage) {
			workers.Relabel(ctx, j, attempt, stages)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return s, nil
}

// Ready reports whether the worker consumes jobs (readiness probe): false
// until its consumer on JOBS fetches, while that consumer is being
// created again (a NATS restart, a deleted consumer), and from the start of
// a drain.
func (s *Server) Ready() bool { return s.ready.Load() }

// setReady is the runner's Consuming: readiness follows the consumer, and
// stays off once the drain began. The first start and every restart of
// consuming are logged, so a worker's log shows when it took jobs again.
func (s *Server) setReady(on bool) {
	on = on && !s.draining.Load()
	s.ready.Store(on)
	if on {
		s.metrics.ready.Set(1)
		s.cfg.Logger.Info("worker ready", slog.String("instance", s.cfg.Instance), slog.String("geocoder", s.geocoderName()))
		return
	}
	s.metrics.ready.Set(0)
}

// RelayActive reports whether this replica's relay holds the lease.
func (s *Server) RelayActive() bool {
	r := s.relay.Load()
	return r != nil && r.Active()
}

// Run starts the relay (active or standby), the consumers and the
// reconciler, and blocks until ctx ends; then it drains — readiness off,
// no new fetches, in-flight jobs finished and acked — and returns.
func (s *Server) Run(ctx context.Context) error {
	if err := s.ensure(ctx); err != nil {
		return err
	}
	lease, err := s.openLease(ctx)
	if err != nil {
		return err
	}
	wake, err := s.crossProcessWake()
	if err != nil {
		return err
	}
	defer wake.close()
	if wake.announcer != nil {
		s.metrics.announcerOf.Store(wake.announcer)
	}
	rl, err := relay.New(relay.Config{
		Store: s.cfg.Store, JS: s.js, Lease: lease, PollInterval: s.cfg.RelayPollInterval, Remote: wake.remote,
		Logger: s.cfg.Logger, AfterPublish: s.cfg.AfterPublish,
		OnRelayed: func(batch []eventstore.RecordedEvent) {
			s.metrics.relayed.Add(float64(len(batch)))
			s.metrics.countFailures(batch)
		},
		Observe:        s.trips.Observe,
		TracerProvider: s.cfg.TracerProvider,
	})
	if err != nil {
		return err
	}
	s.relay.Store(rl)
	s.metrics.lagOf.Store(rl)
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	relayCtx, stopRelay := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRelay()
	wg.Add(1)
	go func() { defer wg.Done(); errs <- rl.Run(relayCtx) }()
	if wake.announcer != nil {
		wg.Add(1)
		go func() { defer wg.Done(); wake.announcer.Run(relayCtx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); errs <- s.reconcile(relayCtx) }()
	watch := &jsWatch{nc: s.cfg.NATS, js: s.js, log: s.cfg.Logger, interval: jsProbeInterval, failures: jsProbeFailures, reconnects: s.metrics.natsMoves}
	wg.Add(1)
	go func() { defer wg.Done(); watch.run(relayCtx) }()
	if q := s.tp.queue; q != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := q.Run(relayCtx); err != nil && !errors.Is(err, context.Canceled) {
				errs <- err
			}
		}()
	}
	if s.respond != nil {
		if err := s.respond.Start(relayCtx); err != nil {
			return err
		}
	}
	if err := s.advisory.Start(relayCtx); err != nil {
		return err
	}
	// The runner retries whatever NATS does to it; it returns before ctx
	// ends only on a closed connection, and the worker then stops with it
	// rather than stay up taking no job.
	consumed := make(chan error, 1)
	go func() { consumed <- s.runner.Run(ctx) }()
	var consumerErr error
	select {
	case <-ctx.Done():
	case consumerErr = <-consumed:
		consumed = nil
		s.cfg.Logger.Error("the job consumer stopped; the worker stops", slog.Any("error", consumerErr))
	}
	s.draining.Store(true)
	s.setReady(false)
	if s.respond != nil {
		errs <- s.respond.Stop()
	}
	if consumed != nil {
		consumerErr = <-consumed // the consumer drained: in-flight work finished and acked
	}
	errs <- consumerErr
	errs <- s.advisory.Stop()
	stopRelay()
	wg.Wait()
	close(errs)
	var all []error
	for e := range errs {
		all = append(all, e)
	}
	return errors.Join(all...)
}

// geocoderName is the configured labeler's geocoder, for the logs.
func (s *Server) geocoderName() string {
	if s.tp.labeler == nil {
		return GeocoderNone
	}
	return s.tp.labeler.Name()
}

// ensure creates the streams, waiting for NATS to come up.
func (s *Server) ensure(ctx context.Context) error {
	for {
		err := stream.Ensure(ctx, s.js, s.streams)
		if err == nil || errors.Is(err, stream.ErrInvalidOptions) {
			return err
		}
		s.cfg.Logger.Warn("cannot create the JetStream streams yet; retrying", slog.Any("error", err))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// openLease opens the relay lease bucket, waiting like ensure: on a NATS
// cluster still electing (a node restarted, or all of them), creating the
// bucket times out for a while, and a worker that gave up then would exit
// into a crash loop instead of starting a moment later.
func (s *Server) openLease(ctx context.Context) (*relay.Lease, error) {
	for {
		lease, err := relay.OpenLease(ctx, s.js, relay.DefaultLeaseBucket, s.cfg.Instance, s.leaseTTL)
		if err == nil || ctx.Err() != nil {
			return lease, err
		}
		s.cfg.Logger.Warn("cannot open the relay lease bucket yet; retrying", slog.Any("error", err))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// reconcile runs reconciler passes while this replica's relay is the active
// one, so one replica reconciles at a time.
func (s *Server) reconcile(ctx context.Context) error {
	interval := s.cfg.ReconcileInterval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if !s.relay.Load().Active() {
			continue
		}
		n, err := s.recon.Pass(ctx)
		if err != nil && ctx.Err() == nil {
			s.cfg.Logger.Warn("reconcile pass failed", slog.Any("error", err))
		}
		s.metrics.requeued.Add(float64(n))
	}
}
