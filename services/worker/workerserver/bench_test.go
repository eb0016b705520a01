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
	es := testkit.Store(b)
	_, nc := testkit.NATS(b)
	const concurrency = 4
	srv, err := workerserver.New(workerserver.Config{Store: es, NATS: nc, Concurrency: concurrency})
	require.NoError(b, err)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(rctx) }()
	b.Cleanup(func() { cancel(); <-done })

	// Wake clients when a trip's StagesComputed reaches EVENTS.
	var mu sync.Mutex
	waiters := map[string]chan struct{}{}
	sub, err := nc.Subscribe("events.trip.*.StagesComputed", func(m *nats.Msg) {
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

	trips := tripstore.New(es, nil)
	long, err := pipelinetest.LoadUpload(ctx, trips, fixtures.Bytes(fixtures.OsloTrondheim))
	require.NoError(b, err)
	tiny, err := pipelinetest.Store(ctx, trips, "tiny.gpx", 300, "tiny", pipelinetest.Line(60.0, 10.0, 60.02, 10.0, 3), true)
	require.NoError(b, err)

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
		for range concurrency {
			wg.Go(func() {
				for range next {
					id := uuid.New()
					ch := make(chan struct{})
					mu.Lock()
					waiters[id.String()] = ch
					mu.Unlock()
					ref, _ := tripstore.HashBytes(up.Info.Hash)
					_, err := trips.Execute(ctx, tripstore.User("bench"), id, trip.Create{
						Upload: &trip.CreateUpload{Filename: up.Filename, SizeBytes: up.Size, Route: up.Info},
					}, tripstore.Options{BlobRefs: [][]byte{ref}})
					require.NoError(b, err)
					select {
					case <-ch:
					case <-time.After(60 * time.Second):
						b.Errorf("trip %s: no stages within 60 s", id)
						return
					}
					ms, err := createToStages(ctx, es, id)
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
	base, _ := phase(tiny, 200)
	lat, wall := phase(long, 200)
	b.StopTimer()
	require.Len(b, lat, 200)
	bp50 := percentile(base, 50)
	p50, p99 := percentile(lat, 50), percentile(lat, 99)
	fmt.Fprintf(os.Stdout, "pipeline create-to-stages p50_ms=%.1f p99_ms=%.1f baseline_p50_ms=%.1f ratio=%.2f trips_per_s=%.1f\n",
		p50, p99, bp50, p50/bp50, 200/wall.Seconds())
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
