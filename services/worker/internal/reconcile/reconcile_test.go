package reconcile_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/planner"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/services/worker/internal/job"
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
		passUntil := passesUntil(ctx, t, r)
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

	t.Run("an analysis is forgotten when its answer follows its labels, checked for labels after the deadline when it recorded none, and forgotten with its trip", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		es, js, trips, up := setup(t)
		a := staged(t, es, trips, up)
		b := staged(t, es, trips, up)
		var now atomic.Int64
		now.Store(time.Now().UnixNano())
		type relabelled struct {
			trip   uuid.UUID
			stages int
		}
		relabels := make(chan relabelled, 4)
		r, err := reconcile.New(reconcile.Config{Trips: trips, JS: js, Deadline: time.Hour,
			Clock: func() time.Time { return time.Unix(0, now.Load()) },
			Relabel: func(_ context.Context, j job.Job, _ string, stages []trip.Stage) {
				relabels <- relabelled{j.TripID, len(stages)}
			}})
		require.NoError(t, err)
		passUntil := passesUntil(ctx, t, r)
		passUntil(2, "both analyses are watched (the stages requests were answered)")

		// a's job labels its stages (synchronously, caused by the request),
		// then fails for good; b's fails without recording labels.
		fail := func(s stagedTrip) {
			t.Helper()
			_, err := trips.Execute(ctx, tripstore.System(), s.id, trip.RecordAnalysisFailed{AnalysisID: s.analysis, Reason: "test"},
				tripstore.Options{Metadata: eventstore.Metadata{CausationID: s.request.String()}})
			require.NoError(t, err)
		}
		_, err = trips.Execute(ctx, tripstore.System(), a.id, trip.RecordLabelsUnavailable{Stages: a.stages, Reason: "test"},
			tripstore.Options{Metadata: eventstore.Metadata{CausationID: a.request.String()}})
		require.NoError(t, err)
		fail(a)
		fail(b)
		passUntil(1, "a's answer after its labels ends its watch an hour before the deadline")
		require.Empty(t, relabels, "no trip is asked about labels before the deadline")

		now.Add(int64(2 * time.Hour))
		_, err = r.Pass(ctx)
		require.NoError(t, err)
		require.Len(t, relabels, 1, "after the deadline, b's trip is asked about its labels")
		got := <-relabels
		require.Equal(t, relabelled{b.id, len(b.stages)}, got, "b's stages, none labelled, are labelled again")
		require.Equal(t, 1, r.Watched(), "b stays watched until its labels are settled")

		l, err := trips.Load(ctx, tripstore.System(), b.id)
		require.NoError(t, err)
		_, err = trips.Execute(ctx, tripstore.System(), b.id, trip.Delete{Version: l.State.Version}, tripstore.Options{})
		require.NoError(t, err)
		passUntil(0, "the trip's deletion ends the watch of its requests")
	})
}

// stagedTrip is a trip whose stages were computed, with the analysis they
// requested: its id, the request's event id and its stages.
type stagedTrip struct {
	id       uuid.UUID
	analysis string
	request  uuid.UUID
	stages   []trip.StageRef
}

// staged creates a trip and computes its stages as the stages job does
// (the result caused by the RouteImported request), which requests an
// analysis of every stage.
func staged(t *testing.T, es eventstore.Store, trips *tripstore.Store, up pipelinetest.Upload) stagedTrip {
	t.Helper()
	ctx := context.Background()
	id, err := pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
	require.NoError(t, err)
	requestOf := func(match func(eventstore.RecordedEvent) bool) uuid.UUID {
		t.Helper()
		evs, err := es.ReadStream(ctx, tripstore.StreamID(id), 0, 0)
		require.NoError(t, err)
		for _, e := range evs {
			if match(e) {
				return e.ID
			}
		}
		t.Fatal("no such request in the stream")
		return uuid.Nil
	}
	imported := requestOf(func(e eventstore.RecordedEvent) bool { _, ok := e.Payload.(*eventsv1.RouteImported); return ok })
	p, err := planner.New(planner.Config{Trips: trips})
	require.NoError(t, err)
	require.NoError(t, p.ComputeStages(ctx, id, func() {}, func(trip.StagesKey) tripstore.Options {
		return tripstore.Options{Metadata: eventstore.Metadata{CausationID: imported.String()}}
	}))
	l, err := trips.Load(ctx, tripstore.System(), id)
	require.NoError(t, err)
	require.Len(t, l.State.Analyses, 1)
	an := l.State.Analyses[0]
	request := requestOf(func(e eventstore.RecordedEvent) bool {
		ar, ok := e.Payload.(*eventsv1.AnalysisRequested)
		return ok && ar.GetAnalysisId() == an.ID
	})
	return stagedTrip{id: id, analysis: an.ID, request: request, stages: an.Stages}
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

// passesUntil returns a function that runs passes of r until it watches
// the given number of requests. A pass reads the feed up to its horizon,
// which another test's open transaction on the same server may hold back
// a moment: pass until what the test waits for has been read.
func passesUntil(ctx context.Context, t *testing.T, r *reconcile.Reconciler) func(watched int, msg string) {
	return func(watched int, msg string) {
		t.Helper()
		require.Eventually(t, func() bool {
			_, err := r.Pass(ctx)
			require.NoError(t, err)
			return r.Watched() == watched
		}, 10*time.Second, 10*time.Millisecond, msg)
	}
}
