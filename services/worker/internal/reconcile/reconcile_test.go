package reconcile_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/postgres"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/reconcile"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

func TestReconciler(t *testing.T) {
	t.Parallel()
	t.Run("a request without a terminal event is re-enqueued after the deadline, and forgotten once it ends", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		_, js, trips, up := setup(t)
		id, err := pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)

		now := time.Now()
		r, err := reconcile.New(reconcile.Config{Trips: trips, JS: js, Deadline: time.Minute, Clock: func() time.Time { return now }})
		require.NoError(t, err)
		jobsStored := func() uint64 {
			s, err := js.Stream(ctx, stream.Jobs)
			require.NoError(t, err)
			info, err := s.Info(ctx)
			require.NoError(t, err)
			return info.State.LastSeq
		}

		n1, err := r.Pass(ctx)
		require.NoError(t, err)
		require.Zero(t, n1, "inside the deadline nothing is re-enqueued")
		require.Equal(t, 1, r.Watched(), "the stages request is watched")

		now = now.Add(2 * time.Minute)
		n2, err := r.Pass(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n2)
		require.Equal(t, uint64(1), jobsStored(), "the stages job was published again")

		n3, err := r.Pass(ctx)
		require.NoError(t, err)
		require.Zero(t, n3, "not again before another deadline")

		l, err := trips.Load(ctx, tripstore.System(), id)
		require.NoError(t, err)
		_, err = trips.Execute(ctx, tripstore.System(), id, trip.RecordStagesFailed{For: l.State.StagesProgress.For, Reason: "test"}, tripstore.Options{})
		require.NoError(t, err)
		now = now.Add(2 * time.Minute)
		n4, err := r.Pass(ctx)
		require.NoError(t, err)
		require.Zero(t, n4)
		require.Zero(t, r.Watched(), "a terminal event ends the watch")

		// A fresh reconciler (a restart) resumes from the saved watermark.
		r2, err := reconcile.New(reconcile.Config{Trips: trips, JS: js, Deadline: time.Minute, Clock: func() time.Time { return now }})
		require.NoError(t, err)
		_, err = r2.Pass(ctx)
		require.NoError(t, err)
		require.Zero(t, r2.Watched(), "nothing before the watermark is re-read")
	})

	t.Run("a request is forgotten as soon as its answer passes in the feed, and only its own answer counts", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		es, js, trips, up := setup(t)
		a, err := pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		b, err := pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		r, err := reconcile.New(reconcile.Config{Trips: trips, JS: js, Deadline: time.Hour})
		require.NoError(t, err)
		// A pass reads the feed up to its horizon, which another test's
		// open transaction on the same server may hold back a moment: pass
		// until what the test waits for has been read.
		passUntil := func(watched int, msg string) {
			t.Helper()
			require.Eventually(t, func() bool {
				_, err := r.Pass(ctx)
				require.NoError(t, err)
				return r.Watched() == watched
			}, 10*time.Second, 10*time.Millisecond, msg)
		}
		passUntil(2, "both stages requests are watched")

		// answer records the trip's StagesFailed caused by causation.
		answer := func(id uuid.UUID, causation string) {
			t.Helper()
			l, err := trips.Load(ctx, tripstore.System(), id)
			require.NoError(t, err)
			_, err = trips.Execute(ctx, tripstore.System(), id, trip.RecordStagesFailed{For: l.State.StagesProgress.For, Reason: "test"},
				tripstore.Options{Metadata: eventstore.Metadata{CausationID: causation}})
			require.NoError(t, err)
		}
		evs, err := es.ReadStream(ctx, tripstore.StreamID(a), 0, 0)
		require.NoError(t, err)
		var request uuid.UUID
		for _, e := range evs {
			if _, ok := e.Payload.(*eventsv1.RouteImported); ok {
				request = e.ID
			}
		}
		require.NotEqual(t, uuid.Nil, request)
		answer(b, uuid.NewString()) // another request's answer: ends no watch
		answer(a, request.String())
		// The feed hands both answers on in order, so one watch left means
		// a's own answer ended a's and b's stale one ended nothing.
		passUntil(1, "its own answer ends the watch an hour before the deadline")
		_, err = r.Pass(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, r.Watched(), "b's request is still watched")
	})
}

// setup is a store and an embedded NATS with the streams made, the trip
// store over it and a 50-point route stored to create trips from.
func setup(t *testing.T) (*postgres.Store, jetstream.JetStream, *tripstore.Store, pipelinetest.Upload) {
	t.Helper()
	ctx := context.Background()
	es := testkit.Store(t)
	_, nc := testkit.NATS(t)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.NoError(t, stream.Ensure(ctx, js, stream.DefaultOptions()))
	trips := tripstore.New(es, nil)
	up, err := pipelinetest.Store(ctx, trips, "line.gpx", 100, "line", pipelinetest.Line(60, 10, 60.5, 10, 50), true)
	require.NoError(t, err)
	return es, js, trips, up
}
