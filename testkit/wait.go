package testkit

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

// WaitForTrip reloads trip id from the store every 20 ms until ok holds and
// returns that state; it fails t after a minute. The minute is a liveness
// bound for tests whose workers run in the background, not a speed
// assertion.
func WaitForTrip(t testing.TB, trips *tripstore.Store, id uuid.UUID, ok func(trip.State) bool) trip.State {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		l, err := trips.Load(context.Background(), tripstore.System(), id)
		if err != nil {
			t.Fatalf("testkit: load %s: %v", id, err)
		}
		if ok(l.State) {
			return l.State
		}
		if time.Now().After(deadline) {
			t.Fatalf("testkit: trip %s did not reach the state waited for within a minute (version %d, %d stages)", id, l.State.Version, len(l.State.Stages))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
