package apiserver

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/planner"
	"github.com/roadbook/roadbook/tripstore"
)

// shared is what every Connect service of the API holds: the config, the
// use cases (planner), the trip store for reads, the rate limiter, the log,
// the GetTrip cache and the shutdown signal.
type shared struct {
	cfg     Config
	planner *planner.Planner
	trips   *tripstore.Store
	limits  *limiter
	log     *slog.Logger
	// digests caches GetTrip answers by stream version.
	digests digestCache
	// hours remembers stages' riding hours for the digests (ridinghours.go).
	hours ridingHours
	// watching counts each user's open WatchTrip streams.
	watching *watchers

	closeOnce sync.Once
	// done is closed when the server shuts down (WatchTrip streams end).
	done chan struct{}
}

func (s *shared) closing() {
	s.closeOnce.Do(func() { close(s.done) })
}

// fail is every handler's exit for errors.
func (s *shared) fail(ctx context.Context, err error) error {
	return connectError(ctx, s.log, err)
}

func isNotFound(err error) bool {
	return errors.Is(err, eventstore.ErrNotFound) || errors.Is(err, trip.ErrNotFound)
}
