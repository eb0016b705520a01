package relay_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

func TestRelayCursor(t *testing.T) {
	t.Parallel()

	t.Run("the cursor is saved once an interval however many batches, and once more on shutdown", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		es := testkit.Store(t)
		_, nc := testkit.NATS(t)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		require.NoError(t, stream.Ensure(ctx, js, stream.DefaultOptions()))
		l, err := relay.OpenLease(ctx, js, relay.DefaultLeaseBucket, "a", time.Second)
		require.NoError(t, err)
		var (
			mu      sync.Mutex
			saves   []int
			batches int
		)
		r, err := relay.New(relay.Config{Store: es, JS: js, Lease: l, PollInterval: 20 * time.Millisecond,
			CursorInterval: time.Minute,
			OnSaved:        func(n int, _ eventstore.Cursor) { mu.Lock(); saves = append(saves, n); mu.Unlock() },
			OnRelayed:      func([]eventstore.RecordedEvent) { mu.Lock(); batches++; mu.Unlock() },
		})
		require.NoError(t, err)
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); require.NoError(t, r.Run(rctx)) }()
		t.Cleanup(func() { cancel(); <-done })
		require.Eventually(t, r.Active, 10*time.Second, 10*time.Millisecond)

		trips := tripstore.New(es, nil)
		up, err := pipelinetest.Store(ctx, trips, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		for i := 1; i <= 4; i++ {
			_, err = pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
			require.NoError(t, err)
			require.Eventually(t, func() bool { return r.Published() == int64(2*i) }, 10*time.Second, 5*time.Millisecond)
		}
		mu.Lock()
		require.Equal(t, 4, batches, "each trip's two events were one batch")
		require.Empty(t, saves, "no save within the interval")
		mu.Unlock()
		cur, err := es.LoadCursor(ctx, relay.DefaultReader)
		require.NoError(t, err)
		require.Zero(t, cur, "nothing saved yet: a crash now hands the 8 events on again, and dedup drops them")

		cancel()
		<-done
		mu.Lock()
		require.Equal(t, []int{8}, saves, "shutting down with the lease saved everything relayed")
		mu.Unlock()
		feed, next, err := es.ReadFeed(ctx, eventstore.Cursor{}, 100)
		require.NoError(t, err)
		require.Len(t, feed, 8)
		cur, err = es.LoadCursor(ctx, relay.DefaultReader)
		require.NoError(t, err)
		require.Equal(t, next, cur)
	})

	t.Run("a cursor due while events keep coming is saved within the interval", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		es := testkit.Store(t)
		_, nc := testkit.NATS(t)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		require.NoError(t, stream.Ensure(ctx, js, stream.DefaultOptions()))
		l, err := relay.OpenLease(ctx, js, relay.DefaultLeaseBucket, "a", time.Second)
		require.NoError(t, err)
		r, err := relay.New(relay.Config{Store: es, JS: js, Lease: l, PollInterval: time.Minute, CursorInterval: 50 * time.Millisecond})
		require.NoError(t, err)
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); require.NoError(t, r.Run(rctx)) }()
		t.Cleanup(func() { cancel(); <-done })
		require.Eventually(t, r.Active, 10*time.Second, 10*time.Millisecond)

		trips := tripstore.New(es, nil)
		up, err := pipelinetest.Store(ctx, trips, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		_, err = pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		_, next, err := es.ReadFeed(ctx, eventstore.Cursor{}, 100)
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			cur, err := es.LoadCursor(ctx, relay.DefaultReader)
			return err == nil && cur == next
		}, 5*time.Second, 10*time.Millisecond, "saved when due, not at the next poll a minute later")
	})

	t.Run("an interval past a tenth of the dedup window is refused", func(t *testing.T) {
		t.Parallel()
		_, nc := testkit.NATS(t)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		_, err = relay.New(relay.Config{Store: testkit.Store(t), JS: js, Lease: &relay.Lease{}, CursorInterval: 2 * time.Minute})
		require.ErrorIs(t, err, relay.ErrInvalidConfig)
		require.ErrorContains(t, err, "CursorInterval 2m0s")
	})
}
