package testkit

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
	"github.com/roadbook/roadbook/tripstore"
)

// ComputeStages does what the stages worker does for trip id — the
// planner's ComputeStages, the very code the worker runs — and returns the
// trip after it: tests of the API and the MCP service get real paced stages
// without running a worker.
func ComputeStages(t testing.TB, trips *tripstore.Store, id uuid.UUID) trip.State {
	t.Helper()
	ctx := context.Background()
	p, err := planner.New(planner.Config{Trips: trips})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ComputeStages(ctx, id, func() {}, func(trip.StagesKey) tripstore.Options { return tripstore.Options{} }); err != nil {
		t.Fatalf("testkit: compute the stages of %s: %v", id, err)
	}
	l, err := trips.Load(ctx, tripstore.System(), id)
	if err != nil {
		t.Fatalf("testkit: load %s: %v", id, err)
	}
	return l.State
}
