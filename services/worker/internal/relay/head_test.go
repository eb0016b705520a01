package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/tripstore"
)

func TestRelayEventsHead(t *testing.T) {
	t.Parallel()

	// createTrips records n trips (TripCreated and RouteImported each, and
	// one stages job each).
	createTrips := func(t *testing.T, g rig, n int) {
		t.Helper()
		ctx := context.Background()
		trips := tripstore.New(g.es, nil)
		up, err := pipelinetest.Store(ctx, trips, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		for range n {
			_, err = pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
			require.NoError(t, err)
		}
	}

	t.Run("a relay resuming from an old cursor long after the dedup window stores no event twice", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		o := stream.DefaultOptions()
		o.EventsDuplicates = stream.MinEventsDuplicates
		g := newRigWith(t, o)
		first, stop := g.run(t, relay.Config{PollInterval: 20 * time.Millisecond})
		createTrips(t, g, 3)
		require.Eventually(t, func() bool { return first.Published() == 6 }, 10*time.Second, 10*time.Millisecond)
		stop()
		// A crash before any save: the next holder starts from the
		// beginning, after the dedup window has let go of every id.
		require.NoError(t, g.es.SaveCursor(ctx, relay.DefaultReader, eventstore.Cursor{}))
		time.Sleep(o.EventsDuplicates + 500*time.Millisecond)

		second, _ := g.run(t, relay.Config{PollInterval: 20 * time.Millisecond})
		require.Eventually(t, func() bool { return second.Published() == 6 }, 10*time.Second, 10*time.Millisecond,
			"it reads the six events again")
		require.Equal(t, uint64(6), g.lastSeq(t, stream.Events), "and leaves out the six EVENTS already holds")
		require.Equal(t, uint64(3), g.lastSeq(t, stream.Jobs), "the jobs published again are dropped by JOBS' window")

		createTrips(t, g, 1)
		require.Eventually(t, func() bool { return second.Published() == 8 }, 10*time.Second, 10*time.Millisecond)
		require.Equal(t, uint64(8), g.lastSeq(t, stream.Events), "what follows is stored once, after them")
		s, err := g.js.Stream(ctx, stream.Events)
		require.NoError(t, err)
		last, err := s.GetMsg(ctx, 8)
		require.NoError(t, err)
		require.NotEmpty(t, last.Header.Get(relay.HeaderFeedTx), "the message says where its event is in the feed")
	})

	t.Run("a batch the last holder stored half of is completed, and its stored half is not stored again", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		g := newRig(t)
		first, stop := g.run(t, relay.Config{PollInterval: 20 * time.Millisecond})
		createTrips(t, g, 1)
		require.Eventually(t, func() bool { return first.Published() == 2 }, 10*time.Second, 10*time.Millisecond)
		stop() // a clean stop: its cursor is saved after the two events

		// Two more events, and a holder that stored the first one's EVENTS
		// message exactly as a relay does, then died.
		createTrips(t, g, 1)
		cur, err := g.es.LoadCursor(ctx, relay.DefaultReader)
		require.NoError(t, err)
		var page eventstore.FeedPage
		require.Eventually(t, func() bool { // the feed holds events back behind other tests' transactions
			page, err = g.es.ReadFeedPage(ctx, cur, 10)
			return err == nil && len(page.Events) == 2
		}, 10*time.Second, 10*time.Millisecond)
		msgs, err := relay.Messages(page.Events[0], page.Cursors[0])
		require.NoError(t, err)
		require.Equal(t, stream.Events, msgs[0].Stream)
		_, err = g.js.PublishMsg(ctx, msgs[0].Msg, jetstream.WithExpectLastSequence(2))
		require.NoError(t, err)

		second, _ := g.run(t, relay.Config{PollInterval: 20 * time.Millisecond})
		require.Eventually(t, func() bool { return second.Published() == 2 }, 10*time.Second, 10*time.Millisecond)
		require.Equal(t, uint64(4), g.lastSeq(t, stream.Events), "each of the four events once")
		s, err := g.js.Stream(ctx, stream.Events)
		require.NoError(t, err)
		for i, ev := range page.Events {
			m, err := s.GetMsg(ctx, uint64(3+i))
			require.NoError(t, err)
			require.Equal(t, ev.ID.String(), m.Header.Get(nats.MsgIdHdr), "in feed order")
		}
	})
}
