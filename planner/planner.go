package planner

import (
	"errors"
	"log/slog"
	"time"

	"github.com/roadbook/roadbook/tripstore"
)

// Planner runs the use cases. Build it with New.
type Planner struct {
	trips  *tripstore.Store
	limits Limits
	clock  func() time.Time
	ttl    time.Duration
	log    *slog.Logger
}

// Config is what the use cases need.
type Config struct {
	// Trips is the trip store. Required.
	Trips *tripstore.Store
	// Limits counts the calls DOMAIN §9 limits (default: none limited).
	Limits Limits
	// Clock decides idempotency expiry (default time.Now; the trip store
	// has its own for the domain's rules).
	Clock func() time.Time
	// IdempotencyTTL is how long an idempotency key answers replays
	// (default 5 min).
	IdempotencyTTL time.Duration
	// Logger receives what cannot be told to a caller whose write stood
	// (default: discard).
	Logger *slog.Logger
}

// New validates cfg.
func New(cfg Config) (*Planner, error) {
	if cfg.Trips == nil {
		return nil, errors.New("planner: Config.Trips is required")
	}
	p := &Planner{trips: cfg.Trips, limits: cfg.Limits, clock: cfg.Clock, ttl: cfg.IdempotencyTTL, log: cfg.Logger}
	if p.limits == nil {
		p.limits = unlimited{}
	}
	if p.clock == nil {
		p.clock = time.Now
	}
	if p.ttl <= 0 {
		p.ttl = 5 * time.Minute
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	return p, nil
}

// Trips is the trip store the planner writes through (for reads the API
// makes itself: lists, watch streams).
func (p *Planner) Trips() *tripstore.Store { return p.trips }
