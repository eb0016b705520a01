package workerserver_test

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// BenchmarkHopPrefetch is the hop with and without the page the create's
// append reads for the relay (eventstore.FeedPrefetcher), in alternating
// rounds of one run, with River's beside them: the before and after of
// the eleventh session on one machine state. The "off" rounds withdraw the
// relay's requests (hopStore.noPrefetch), so the relay reads every page
// itself, as it did before.
func BenchmarkHopPrefetch(b *testing.B) {
	ctx := context.Background()
	rig := startPipeline(b)
	river := startRiverHop(b)
	_ = rig.hops(ctx, b, 20)
	_ = river.hops(ctx, b, 20)
	b.ResetTimer()
	var on, off, theirs []float64
	round := func(prefetch bool) {
		rig.hs.noPrefetch.Store(!prefetch)
		lat := rig.hops(ctx, b, hopsPerRound)
		if prefetch {
			on = append(on, lat...)
		} else {
			off = append(off, lat...)
		}
	}
	for i := range hopRounds {
		round(i%2 == 0) // each side first in every other round
		round(i%2 == 1)
		theirs = append(theirs, river.hops(ctx, b, hopsPerRound)...)
	}
	rig.hs.noPrefetch.Store(false)
	p50 := func(x []float64) float64 { return percentile(x, 50) }
	fmt.Fprintf(os.Stdout, "pipeline hop-prefetch p50_ms=%.2f p99_ms=%.2f off_p50_ms=%.2f off_p99_ms=%.2f river_p50_ms=%.2f ratio=%.2f off_ratio=%.2f\n",
		p50(on), percentile(on, 99), p50(off), percentile(off, 99), p50(theirs), p50(theirs)/p50(on), p50(theirs)/p50(off))
}
