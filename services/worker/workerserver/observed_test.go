package workerserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// The relay hands the worker's trip cache each page before it publishes it
// (tripstore.Store.Observe), so the stages job a create sets off decides on
// the trip as relayed: between the create and its StagesComputed, nothing
// of the trip is read. Without it, the job's load took 0.57 ms of a 5.77
// ms hop in the trace (docs/BENCHMARKS.md, "Eighth session").
func TestAStagesJobReadsNothingOfATripItsRelayHandedOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rig := startPipeline(t)
	tr := newHopTrace()
	rig.hs.mu.Lock()
	rig.hs.trace = tr
	rig.hs.mu.Unlock()
	for range 10 {
		id, _ := rig.oneHop(ctx, t)
		tr.mu.Lock()
		var whats []string
		for _, c := range tr.calls[id] {
			whats = append(whats, c.what)
			if c.what == "stages" {
				break
			}
		}
		tr.mu.Unlock()
		require.Equal(t, []string{"append", "stages"}, whats, "trip %s: the create, then the stages job's one append", id)
	}
}
