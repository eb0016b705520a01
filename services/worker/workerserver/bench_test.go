package workerserver_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore/feedwake"
	"github.com/roadbook/roadbook/eventstore/postgres"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/tripstore"
)

// BenchmarkPipeline is `make bench-pipeline`: 200 trips from the 627 km
// fixture through PostgreSQL and JetStream (create → relay → stages job →
// StagesComputed), beside a baseline of the bare round trip — the same path
// with a 3-point route, so pacing costs nothing — in the same run. Clients
// run a closed loop (create, wait for the trip's stages, repeat) as many as
// the worker's concurrency. Latency is RecordedAt(StagesComputed) −
// RecordedAt(TripCreated): both stamped by PostgreSQL's clock.
func BenchmarkPipeline(b *testing.B) {
	ctx := context.Background()
	rig := startPipeline(b)
	river := startRiverHop(b)

	// Wake clients when a trip's StagesComputed reaches EVENTS.
	var mu sync.Mutex
	waiters := map[string]chan struct{}{}
	sub, err := rig.nc.Subscribe("events.trip.*.StagesComputed", func(m *nats.Msg) {
		id := strings.Split(m.Subject, ".")[2]
		mu.Lock()
		if ch, ok := waiters[id]; ok {
			close(ch)
			delete(waiters, id)
		}
		mu.Unlock()
	})
	require.NoError(b, err)
	b.Cleanup(func() { _ = sub.Unsubscribe() })

	phase := func(up pipelinetest.Upload, count int) ([]float64, time.Duration) {
		var lat []float64
		var lmu sync.Mutex
		next := make(chan int, count)
		for i := range count {
			next <- i
		}
		close(next)
		start := time.Now()
		var wg sync.WaitGroup
		for range pipelineConcurrency {
			wg.Go(func() {
				for range next {
					id := uuid.New()
					ch := make(chan struct{})
					mu.Lock()
					waiters[id.String()] = ch
					mu.Unlock()
					ref, _ := tripstore.HashBytes(up.Info.Hash)
					_, err := rig.trips.Execute(ctx, tripstore.User("bench"), id, trip.Create{
						Upload: &trip.CreateUpload{Filename: up.Filename, SizeBytes: up.Size, Route: up.Info},
					}, tripstore.Options{BlobRefs: [][]byte{ref}})
					require.NoError(b, err)
					select {
					case <-ch:
					case <-time.After(60 * time.Second):
						b.Errorf("trip %s: no stages within 60 s", id)
						return
					}
					ms, err := createToStages(ctx, rig.es, id)
					require.NoError(b, err)
					lmu.Lock()
					lat = append(lat, ms)
					lmu.Unlock()
				}
			})
		}
		wg.Wait()
		return lat, time.Since(start)
	}

	b.ResetTimer()
	hop := hopComparison(ctx, b, rig, river)
	base, _ := phase(rig.tiny, 200)
	lat, wall := phase(rig.long, 200)
	b.StopTimer()
	require.Len(b, lat, 200)
	bp50 := percentile(base, 50)
	p50, p99 := percentile(lat, 50), percentile(lat, 99)
	fmt.Fprintf(os.Stdout, "pipeline create-to-stages p50_ms=%.1f p99_ms=%.1f baseline_p50_ms=%.1f ratio=%.2f trips_per_s=%.1f\n",
		p50, p99, bp50, p50/bp50, 200/wall.Seconds())
	fmt.Fprintln(os.Stdout, hop)
}

// BenchmarkHop is the hop line of BenchmarkPipeline alone:
//
//	go test -run '^$' -bench '^BenchmarkHop$' -benchtime=1x ./workerserver
func BenchmarkHop(b *testing.B) {
	ctx := context.Background()
	rig := startPipeline(b)
	river := startRiverHop(b)
	b.ResetTimer()
	fmt.Fprintln(os.Stdout, hopComparison(ctx, b, rig, river))
}

// hopComparison measures the hop one at a time, ours and River's in
// alternating rounds so that a load swing from other work on the machine
// falls on both alike, after a warm-up of each, and returns the hop line.
//
// The second line is the CPU each side spent per hop: this process (all of
// it: client, relay, JetStream, worker, River) and the side's own
// PostgreSQL backends.
func hopComparison(ctx context.Context, b *testing.B, rig *pipelineRig, river *riverRig) string {
	_ = rig.hops(ctx, b, 20)
	_ = river.hops(ctx, b, 20)
	var (
		ours, theirs       []float64
		oursCPU, theirsCPU [2]time.Duration // process, postgres
		oursQ, theirsQ     int64            // pool acquires: statements or transactions
	)
	timed := func(c cpuClock, acc *[2]time.Duration, queries *int64, f func() []float64) []float64 {
		r0, q0 := c.read(ctx), c.pool.Stat().AcquireCount()
		lat := f()
		q1 := c.pool.Stat().AcquireCount()
		p, s := c.read(ctx).since(r0)
		acc[0] += p
		acc[1] += s
		*queries += q1 - q0 - 1 // less the first reading's own
		return lat
	}
	for range hopRounds {
		ours = append(ours, timed(rig.cpu, &oursCPU, &oursQ, func() []float64 { return rig.hops(ctx, b, hopsPerRound) })...)
		theirs = append(theirs, timed(river.cpu, &theirsCPU, &theirsQ, func() []float64 { return river.hops(ctx, b, hopsPerRound) })...)
	}
	per := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }
	cross := rig.crossHops(ctx, b, 60)
	quiet := rig.quietHops(ctx, b, 60)
	return hopLine(ours, theirs) + "\n" + fmt.Sprintf("pipeline hop-quiet p50_ms=%.2f p99_ms=%.2f (each hop after the previous trip's analysis finished: the hop without the work it sets off)\n",
		percentile(quiet, 50), percentile(quiet, 99)) + fmt.Sprintf("pipeline hop-cross-process p50_ms=%.2f p99_ms=%.2f (client on a store value of its own, as the API in another process)\n",
		percentile(cross, 50), percentile(cross, 99)) + fmt.Sprintf("pipeline hop-cpu us_per_hop process=%.0f postgres=%.0f river_process=%.0f river_postgres=%.0f pool_acquires_per_hop=%.1f river_pool_acquires_per_hop=%.1f",
		per(oursCPU[0], len(ours)), per(oursCPU[1], len(ours)), per(theirsCPU[0], len(theirs)), per(theirsCPU[1], len(theirs)),
		float64(oursQ)/float64(len(ours)), float64(theirsQ)/float64(len(theirs)))
}

// The hop comparison: hopRounds rounds of hopsPerRound sequential hops per
// side, alternating. Fifteen rounds (600 hops a side, about 6 s) since the
// eleventh session: with five, two runs of one binary a minute apart gave
// ratios as far apart as 0.90 and 1.13, and the p50 of 600 hops moves less
// (docs/BENCHMARKS.md, "Eleventh session").
const (
	hopRounds    = 15
	hopsPerRound = 40
)

// pipelineConcurrency is the worker's pool and the closed-loop clients of
// the create-to-stages phases.
const pipelineConcurrency = 4

// pipelineRig is one worker (relay + consumers) on a fresh PostgreSQL
// schema and an embedded JetStream, and a client's trip store on the same
// event store value, as in one-process mode.
type pipelineRig struct {
	es    *postgres.Store
	hs    *hopStore
	nc    *nats.Conn
	trips *tripstore.Store
	// remote is a client's trip store on a store value of its own (another
	// pool), as the API's in another process: no in-process wake-up.
	remote *tripstore.Store
	// tiny is a 3-point route (pacing costs nothing); long the 627 km
	// fixture.
	tiny, long pipelinetest.Upload
	// cpu reads this process's and the store's backends' CPU.
	cpu cpuClock
}

func startPipeline(b testing.TB) *pipelineRig {
	ctx := context.Background()
	app := "hop_ours_" + uuid.NewString()[:8]
	url := testkit.SchemaURL(b)
	es, err := postgres.Open(ctx, withApp(url, app))
	require.NoError(b, err)
	b.Cleanup(es.Close)
	n, err := testkit.StartNATS(b.TempDir(), -1)
	require.NoError(b, err)
	b.Cleanup(n.Stop)
	nc, err := testkit.Connect(n.URL())
	require.NoError(b, err)
	b.Cleanup(nc.Close)
	hs := newHopStore(es)
	// The worker wakes on other processes' commits as `roadbook worker`
	// does (feedwake); HOP_NO_WAKE=1 leaves that out, for a before/after.
	wake := os.Getenv("HOP_NO_WAKE") == ""
	srv, err := workerserver.New(workerserver.Config{Store: hs, NATS: nc, Concurrency: pipelineConcurrency, CrossProcessWake: wake})
	require.NoError(b, err)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(rctx) }()
	b.Cleanup(func() { cancel(); <-done })
	require.Eventually(b, srv.RelayActive, 30*time.Second, 5*time.Millisecond)

	remote, err := postgres.Open(ctx, withApp(url, app))
	require.NoError(b, err)
	b.Cleanup(remote.Close)
	// The remote client announces its commits as `roadbook api` does, on a
	// NATS connection of its own.
	if wake {
		rnc, err := testkit.Connect(n.URL())
		require.NoError(b, err)
		b.Cleanup(rnc.Close)
		an, err := feedwake.NewAnnouncer(rnc, remote)
		require.NoError(b, err)
		actx, stop := context.WithCancel(ctx)
		announced := make(chan struct{})
		go func() { an.Run(actx); close(announced) }()
		b.Cleanup(func() { stop(); <-announced })
	}
	rig := &pipelineRig{es: es, hs: hs, nc: nc, trips: tripstore.New(hs, nil), remote: tripstore.New(remote, nil),
		cpu: cpuClock{pool: es.Pool(), app: app}}
	rig.long, err = pipelinetest.LoadUpload(ctx, rig.trips, fixtures.Bytes(fixtures.OsloTrondheim))
	require.NoError(b, err)
	rig.tiny, err = pipelinetest.Store(ctx, rig.trips, "tiny.gpx", 300, "tiny", pipelinetest.Line(60.0, 10.0, 60.02, 10.0, 3), true)
	require.NoError(b, err)
	return rig
}

// createToStages is the time between the trip's creation and its stages,
// both as PostgreSQL recorded them.
func createToStages(ctx context.Context, es *postgres.Store, id uuid.UUID) (float64, error) {
	evs, err := es.ReadStream(ctx, tripstore.StreamID(id), 0, 0)
	if err != nil {
		return 0, err
	}
	var created, staged time.Time
	for _, ev := range evs {
		switch ev.Payload.(type) {
		case *eventsv1.TripCreated:
			created = ev.RecordedAt
		case *eventsv1.StagesComputed:
			staged = ev.RecordedAt
		}
	}
	if created.IsZero() || staged.IsZero() {
		return 0, fmt.Errorf("trip %s has no creation or stages", id)
	}
	return float64(staged.Sub(created).Microseconds()) / 1000, nil
}

// percentile is the nearest-rank percentile.
func percentile(v []float64, p float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(i, 0)]
}
