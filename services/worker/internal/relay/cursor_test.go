package relay_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/tripstore"
)

func TestRelayCursor(t *testing.T) {
	t.Parallel()

	t.Run("the cursor is saved once an interval however many batches, and once more on shutdown", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		g := newRig(t)
		es := g.es
		var (
			mu      sync.Mutex
			saves   []int
			batches int
		)
		r, stop := g.run(t, relay.Config{PollInterval: 20 * time.Millisecond, CursorInterval: relay.MaxCursorInterval,
			OnSaved:   func(n int, _ eventstore.Cursor) { mu.Lock(); saves = append(saves, n); mu.Unlock() },
			OnRelayed: func([]eventstore.RecordedEvent) { mu.Lock(); batches++; mu.Unlock() },
		})

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

		stop()
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

	t.Run("a cursor is saved when its interval is up, not at the next poll a minute later", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		g := newRig(t)
		es := g.es
		g.run(t, relay.Config{PollInterval: time.Minute, CursorInterval: 50 * time.Millisecond})

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

	t.Run("an interval past a tenth of JOBS' dedup window is refused", func(t *testing.T) {
		t.Parallel()
		g := newRig(t)
		_, err := relay.New(relay.Config{Store: g.es, JS: g.js, Lease: &relay.Lease{}, CursorInterval: relay.MaxCursorInterval + time.Second})
		require.ErrorIs(t, err, relay.ErrInvalidConfig)
		require.ErrorContains(t, err, "CursorInterval 7s")
	})
}
