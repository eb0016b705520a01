package stream_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/testkit"
)

func TestEventsWindow(t *testing.T) {
	t.Parallel()
	t.Run("EVENTS keeps ids thirty seconds and JOBS two minutes, at least ten of the relay's longest cursor intervals", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 30*time.Second, stream.DefaultOptions().EventsConfig().Duplicates)
		require.Equal(t, 2*time.Minute, stream.DefaultOptions().JobsConfig().Duplicates)
		require.GreaterOrEqual(t, stream.MinJobsDuplicates, 10*relay.MaxCursorInterval, "the shortest JOBS window accepted")
	})
	t.Run("a shorter EVENTS window is refused naming the option", func(t *testing.T) {
		t.Parallel()
		o := stream.DefaultOptions()
		o.EventsDuplicates = 500 * time.Millisecond
		var oe *stream.OptionError
		require.ErrorAs(t, o.Validate(), &oe)
		require.ErrorIs(t, oe, stream.ErrInvalidOptions)
		require.Equal(t, "EventsDuplicates", oe.Field)
	})
	t.Run("an EVENTS window longer than the events are kept is refused", func(t *testing.T) {
		t.Parallel()
		o := stream.DefaultOptions()
		o.EventsMaxAge, o.EventsDuplicates = 10*time.Minute, 20*time.Minute
		var oe *stream.OptionError
		require.ErrorAs(t, o.Validate(), &oe)
		require.Equal(t, "EventsDuplicates", oe.Field)
	})
}

func TestEventsSubjects(t *testing.T) {
	t.Parallel()
	t.Run("EVENTS stores an event under its trip's partition, and watchers still see its type", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		_, nc := testkit.NATS(t)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		require.NoError(t, stream.Ensure(ctx, js, stream.DefaultOptions()))
		trip := uuid.New()
		watched, err := nc.SubscribeSync("events.trip." + trip.String() + ".>")
		require.NoError(t, err)

		published := job.EventSubject(trip, "roadbook.events.v1.StagesComputed")
		id := uuid.NewString()
		ack, err := js.PublishMsg(ctx, &nats.Msg{Subject: published, Data: []byte("{}")}, jetstream.WithMsgID(id))
		require.NoError(t, err)
		require.False(t, ack.Duplicate)
		again, err := js.PublishMsg(ctx, &nats.Msg{Subject: published, Data: []byte("{}")}, jetstream.WithMsgID(id))
		require.NoError(t, err)
		require.True(t, again.Duplicate, "a copy inside the window is dropped")

		m, err := watched.NextMsg(5 * time.Second)
		require.NoError(t, err)
		require.Equal(t, published, m.Subject, "core subscribers get the subject as published")
		st, err := js.Stream(ctx, stream.Events)
		require.NoError(t, err)
		stored, err := st.GetMsg(ctx, ack.Sequence)
		require.NoError(t, err)
		require.Equal(t, stream.StoredSubject(trip), stored.Subject)
		require.Equal(t, id, stored.Header.Get(nats.MsgIdHdr))
		info, err := st.Info(ctx)
		require.NoError(t, err)
		require.Equal(t, uint64(1), info.State.Msgs)
	})
	t.Run("an EVENTS stream created before the transform takes it on the next start", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		_, nc := testkit.NATS(t)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		old := stream.DefaultOptions().EventsConfig()
		old.SubjectTransform, old.Duplicates = nil, 10*time.Minute
		_, err = js.CreateStream(ctx, old)
		require.NoError(t, err)
		trip := uuid.New()
		_, err = js.Publish(ctx, job.EventSubject(trip, "TripCreated"), []byte("{}"))
		require.NoError(t, err)

		require.NoError(t, stream.Ensure(ctx, js, stream.DefaultOptions()))
		ack, err := js.Publish(ctx, job.EventSubject(trip, "RouteImported"), []byte("{}"))
		require.NoError(t, err)
		st, err := js.Stream(ctx, stream.Events)
		require.NoError(t, err)
		require.Equal(t, stream.DefaultEventsDuplicates, st.CachedInfo().Config.Duplicates)
		first, err := st.GetMsg(ctx, 1)
		require.NoError(t, err)
		require.Equal(t, job.EventSubject(trip, "TripCreated"), first.Subject, "what was stored stays")
		second, err := st.GetMsg(ctx, ack.Sequence)
		require.NoError(t, err)
		require.Equal(t, stream.StoredSubject(trip), second.Subject)
	})
	t.Run("a thousand trips are stored under at most EventsPartitions subjects, each where StoredSubject says", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, fmt.Sprintf("events.trip.{{partition(%d,1)}}", stream.EventsPartitions), stream.EventsStoredSubject)
		ctx := context.Background()
		_, nc := testkit.NATS(t)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		require.NoError(t, stream.Ensure(ctx, js, stream.DefaultOptions()))
		st, err := js.Stream(ctx, stream.Events)
		require.NoError(t, err)
		const trips = 1000
		want := map[string]bool{}
		for range trips {
			trip := uuid.New()
			ack, err := js.Publish(ctx, job.EventSubject(trip, "TripCreated"), []byte("{}"))
			require.NoError(t, err)
			stored, err := st.GetMsg(ctx, ack.Sequence)
			require.NoError(t, err)
			require.Equal(t, stream.StoredSubject(trip), stored.Subject, "the server's partition of trip %s", trip)
			want[stored.Subject] = true
		}
		info, err := st.Info(ctx)
		require.NoError(t, err)
		require.Equal(t, uint64(trips), info.State.Msgs)
		subjects := int(info.State.NumSubjects)
		require.Equal(t, len(want), subjects)
		require.LessOrEqual(t, subjects, stream.EventsPartitions)
		require.Greater(t, subjects, stream.EventsPartitions/2, "the trips spread over the partitions")
	})
}
