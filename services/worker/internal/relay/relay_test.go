package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

func TestRelay(t *testing.T) {
	t.Parallel()
	t.Run("one relay is active, a standby takes over when it stops, and every event is published once", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		es := testkit.Store(t)
		_, nc := testkit.NATS(t)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		require.NoError(t, stream.Ensure(ctx, js, stream.DefaultOptions()))

		newRelay := func(owner string) (*relay.Relay, context.CancelFunc, chan struct{}) {
			l, err := relay.OpenLease(ctx, js, relay.DefaultLeaseBucket, owner, time.Second)
			require.NoError(t, err)
			r, err := relay.New(relay.Config{Store: es, JS: js, Lease: l, PollInterval: 20 * time.Millisecond})
			require.NoError(t, err)
			rctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{}) // closed when Run returned
			go func() { defer close(done); require.NoError(t, r.Run(rctx)) }()
			t.Cleanup(func() { cancel(); <-done })
			return r, cancel, done
		}
		a, stopA, doneA := newRelay("a")
		require.Eventually(t, a.Active, 10*time.Second, 10*time.Millisecond)
		b, _, _ := newRelay("b")

		trips := tripstore.New(es, nil)
		up, err := pipelinetest.Store(ctx, trips, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		_, err = pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		require.Eventually(t, func() bool { return a.Published() == 2 }, 10*time.Second, 10*time.Millisecond)
		require.False(t, b.Active(), "the standby waits while the lease is held")
		require.Zero(t, b.Published())

		stopA()
		<-doneA
		require.Eventually(t, b.Active, 10*time.Second, 10*time.Millisecond)
		_, err = pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		require.Eventually(t, func() bool { return b.Published() == 2 }, 10*time.Second, 10*time.Millisecond)

		s, err := js.Stream(ctx, stream.Events)
		require.NoError(t, err)
		info, err := s.Info(ctx)
		require.NoError(t, err)
		require.Equal(t, uint64(4), info.State.LastSeq, "TripCreated + RouteImported of two trips, each once")
		jobs, err := js.Stream(ctx, stream.Jobs)
		require.NoError(t, err)
		jinfo, err := jobs.Info(ctx)
		require.NoError(t, err)
		require.Equal(t, uint64(2), jinfo.State.LastSeq, "one stages job per trip")
	})

	t.Run("an event held back by another process's transaction is relayed when that ends, not at the next poll", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		g := newRig(t)
		es := g.es
		// A poll interval far beyond the test's patience: only a wake-up
		// or the held-back retry can relay anything in time.
		r, _ := g.run(t, relay.Config{PollInterval: time.Hour})

		// Another process's write transaction, begun before the append: it
		// holds the feed's horizon, and its end wakes nobody.
		other, err := pgx.Connect(ctx, pgtest.ServerURL())
		require.NoError(t, err)
		t.Cleanup(func() { _ = other.Close(context.Background()) })
		tx, err := other.Begin(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
		_, err = tx.Exec(ctx, `SELECT pg_current_xact_id()`) // takes a transaction id
		require.NoError(t, err)

		trips := tripstore.New(es, nil)
		up, err := pipelinetest.Store(ctx, trips, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		_, err = pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		time.Sleep(100 * time.Millisecond)
		require.Zero(t, r.Published(), "the trip's events wait behind the open transaction")

		require.NoError(t, tx.Commit(ctx))
		require.Eventually(t, func() bool { return r.Published() == 2 }, 10*time.Second, 5*time.Millisecond,
			"the relay reads again soon after a read that found events held back")
	})

	t.Run("an append by another process wakes the relay at once, not at the next poll", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		g := newRig(t)
		remote := g.listener(t)
		// A poll interval far beyond the test's patience: only the
		// announcement of the other process's commit can relay in time.
		r, _ := g.run(t, relay.Config{PollInterval: time.Hour, Remote: remote})

		other := g.announcingProcess(t)

		api := tripstore.New(other, nil)
		up, err := pipelinetest.Store(ctx, api, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		_, err = pipelinetest.CreateTrip(ctx, api, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		require.Eventually(t, func() bool { return r.Published() == 2 }, 10*time.Second, 5*time.Millisecond,
			"TripCreated and RouteImported relayed on the other process's announcement")
	})

	t.Run("a relay without a lease is refused", func(t *testing.T) {
		t.Parallel()
		_, err := relay.New(relay.Config{})
		require.ErrorIs(t, err, relay.ErrInvalidConfig)
	})
}
