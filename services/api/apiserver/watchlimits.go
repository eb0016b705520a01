package apiserver

import (
	"sync"
	"time"

	"github.com/roadbook/roadbook/planner"
)

// watchers counts each user's open WatchTrip streams on this replica. A
// stream holds a NATS subscription, a goroutine and a store poll for as
// long as it is open, so one user must not hold an unbounded number of
// them; a replica-local count is enough for that (a user spread over N
// replicas holds at most N times the cap, and the ingress pins nothing).
type watchers struct {
	mu    sync.Mutex
	open  map[string]int
	limit int
}

// watchRetryAfter is the delay suggested to a user at the cap: long enough
// for a stream of theirs to end (a tab closed, a lifetime reached).
const watchRetryAfter = 5 * time.Second

// acquire takes one of user's stream slots, or refuses with a
// *planner.RateLimitedError (resource_exhausted, Retry-After) at the cap.
// The release function frees it.
func (w *watchers) acquire(user string) (release func(), err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.open[user] >= w.limit {
		return nil, &planner.RateLimitedError{RetryAfter: watchRetryAfter}
	}
	if w.open == nil {
		w.open = map[string]int{}
	}
	w.open[user]++
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.open[user]--; w.open[user] <= 0 {
				delete(w.open, user)
			}
		})
	}, nil
}
