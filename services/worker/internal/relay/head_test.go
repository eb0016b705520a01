package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/job"
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

	t.Run("a message EVENTS got from elsewhere makes the relay re-read the head, and no event is lost", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		g := newRig(t)
		r, _ := g.run(t, relay.Config{PollInterval: 20 * time.Millisecond})
		createTrips(t, g, 1)
		require.Eventually(t, func() bool { return r.Published() == 2 }, 10*time.Second, 10*time.Millisecond)

		// The relay expects sequence 2 to be the last; a foreign message
		// makes it 3, so its next publish is refused and it reads the head.
		_, err := g.js.PublishMsg(ctx, &nats.Msg{Subject: job.EventSubjectPrefix + ".foreign.Note", Data: []byte("{}")})
		require.NoError(t, err)
		createTrips(t, g, 1)
		require.Eventually(t, func() bool { return r.Published() == 4 }, 10*time.Second, 10*time.Millisecond)
		require.Equal(t, uint64(5), g.lastSeq(t, stream.Events), "two events, the foreign message, two events")
	})
}
