package upstream

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the upstream collectors, registered once on a registry the
// caller passes (never the global default) and shared by every Client built
// with [WithMetrics]; each series carries the upstream's name.
type Metrics struct {
	breakerState *prometheus.GaugeVec
	pacerWait    *prometheus.HistogramVec
	requests     *prometheus.CounterVec
}

// Breaker state values of the roadbook_breaker_state gauge (the name the
// deploy/k8s PrometheusRule alerts on).
const (
	BreakerClosed   = 0
	BreakerHalfOpen = 1
	BreakerOpen     = 2
)

// NewMetrics registers the collectors on reg. Registering twice on the same
// registry returns the already registered collectors, so two components of
// one process can both call it.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, fmt.Errorf("%w: metrics need a registerer", ErrInvalidOption)
	}
	m := &Metrics{
		breakerState: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "roadbook_breaker_state",
			Help: "Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open.",
		}, []string{"upstream"}),
		pacerWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "roadbook_upstream_ratelimit_wait_seconds",
			Help:    "Time a request waited for its rate-limit slot.",
			Buckets: []float64{0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120},
		}, []string{"upstream"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roadbook_upstream_requests_total",
			Help: "Calls per upstream by outcome (ok, cached, not_found, rate_limited, unavailable, circuit_open, forbidden, rejected, refused, too_large, canceled).",
		}, []string{"upstream", "outcome"}),
	}
	var err error
	if m.breakerState, err = register(reg, m.breakerState); err != nil {
		return nil, err
	}
	if m.pacerWait, err = register(reg, m.pacerWait); err != nil {
		return nil, err
	}
	if m.requests, err = register(reg, m.requests); err != nil {
		return nil, err
	}
	return m, nil
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, fmt.Errorf("upstream: register metrics: %w", err)
	}
	return c, nil
}

// outcome names the request counter label for an error.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrCircuitOpen):
		return "circuit_open"
	case errors.Is(err, ErrRateLimited):
		return "rate_limited"
	case errors.Is(err, ErrNotFound):
		return "not_found"
	case errors.Is(err, ErrForbidden):
		return "forbidden"
	case errors.Is(err, ErrBodyTooLarge):
		return "too_large"
	case errors.Is(err, ErrRefused):
		return "refused"
	case errors.Is(err, ErrRejected):
		return "rejected"
	case isCanceled(err):
		return "canceled"
	default:
		return "unavailable"
	}
}
