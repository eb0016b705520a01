package apiserver

import (
	"crypto/rand"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/eventstore"
)

// Config is what the API needs to run.
type Config struct {
	// Store is the event store (PostgreSQL in production, the embedded
	// backend in one-process mode). Required.
	Store eventstore.Store
	// NATS is the connection used for geocoding request-reply, WatchTrip
	// wake-ups and the shared rate-limit counters (JetStream KV). Required.
	NATS *nats.Conn
	// Verifier checks bearer tokens. Required.
	Verifier *auth.Verifier
	// Policy maps procedures to scopes (default auth.DefaultPolicy()).
	Policy auth.Policy
	// PublicBaseURL builds share links, e.g. "https://roadbook.example".
	PublicBaseURL string
	// Clock is the injectable clock (default time.Now).
	Clock func() time.Time
	// Logger receives structured logs (default slog.Default()).
	Logger *slog.Logger
	// TracerProvider makes the server span of every RPC (default the otel
	// global provider: a no-op unless the process installed one). The
	// caller's traceparent header is continued; events the call appends
	// carry the span's context (tripstore).
	TracerProvider trace.TracerProvider
	// Registry receives the API's metrics; /metrics serves it. Nil: a fresh
	// registry owned by the server.
	Registry *prometheus.Registry
	// RateLimits are the per-user limits (default DefaultRateLimits()).
	RateLimits RateLimits
	// PageTokenKey signs list page tokens; replicas must share it. Nil: a
	// random key (tokens then only work on this replica).
	PageTokenKey []byte
	// GeocodeTimeout bounds a geocoding request to the worker (default 5 s).
	GeocodeTimeout time.Duration
	// WatchPoll is WatchTrip's fallback poll interval when no NATS wake-up
	// arrives (default 2 s).
	WatchPoll time.Duration
	// WatchPerUser is how many WatchTrip streams one user may hold open on
	// this replica at once (default 8: a few tabs and devices); one more is
	// refused resource_exhausted with Retry-After.
	WatchPerUser int
	// WatchLifetime is how long a WatchTrip stream lives before it ends
	// cleanly and the client reconnects with its resume token (default
	// 30 min).
	WatchLifetime time.Duration
	// IdempotencyTTL is how long an idempotency key answers replays
	// (default 5 min, ARCHITECTURE §4).
	IdempotencyTTL time.Duration
	// TrustedProxyHops is how many reverse proxies this replica sits behind,
	// each appending its peer's address to X-Forwarded-For (deploy/k8s:
	// 1, ingress-nginx). The public rate limit then keys on the entry the
	// outermost trusted proxy wrote — the TrustedProxyHops-th from the
	// right — never on the entries left of it, which the client writes.
	// 0 (the default) ignores the header and keys on the TCP peer.
	TrustedProxyHops int
	// CORS lets browser frontends on other origins call the API (default:
	// none). See CORSConfig (cors.go).
	CORS CORSConfig
}

// RateLimit is at most N calls per Window.
type RateLimit struct {
	N      int
	Window time.Duration
}

// RateLimits are the per-user limits of DOMAIN §9 and the per-address limit
// of public share reads.
type RateLimits struct {
	Create, Upload, Duplicate, Recompute, Geocode RateLimit
	// Public is per client address on share-link reads.
	Public RateLimit
}

// DefaultRateLimits are DOMAIN §9's numbers (public reads: 120/min).
func DefaultRateLimits() RateLimits {
	m := time.Minute
	return RateLimits{
		Create: RateLimit{10, m}, Upload: RateLimit{10, m}, Duplicate: RateLimit{10, m},
		Recompute: RateLimit{10, m}, Geocode: RateLimit{30, m}, Public: RateLimit{120, m},
	}
}

func (c *Config) defaults() error {
	switch {
	case c.Store == nil:
		return errors.New("apiserver: Config.Store is required")
	case c.NATS == nil:
		return errors.New("apiserver: Config.NATS is required")
	case c.Verifier == nil:
		return errors.New("apiserver: Config.Verifier is required")
	}
	if c.Policy == nil {
		c.Policy = auth.DefaultPolicy()
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.TracerProvider == nil {
		c.TracerProvider = otel.GetTracerProvider()
	}
	if c.Registry == nil {
		c.Registry = prometheus.NewRegistry()
	}
	if c.RateLimits == (RateLimits{}) {
		c.RateLimits = DefaultRateLimits()
	}
	if len(c.PageTokenKey) == 0 {
		c.PageTokenKey = make([]byte, 32)
		_, _ = rand.Read(c.PageTokenKey)
	}
	if c.GeocodeTimeout <= 0 {
		c.GeocodeTimeout = 5 * time.Second
	}
	if c.WatchPoll <= 0 {
		c.WatchPoll = 2 * time.Second
	}
	if c.WatchPerUser <= 0 {
		c.WatchPerUser = 8
	}
	if c.WatchLifetime <= 0 {
		c.WatchLifetime = 30 * time.Minute
	}
	if c.IdempotencyTTL <= 0 {
		c.IdempotencyTTL = 5 * time.Minute
	}
	return nil
}
