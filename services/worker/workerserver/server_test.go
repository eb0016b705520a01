package workerserver_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/postgres"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/services/worker/internal/consumer"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/tripstore"
)

// env is one worker against a fresh schema and an embedded NATS.
type env struct {
	store *postgres.Store
	trips *tripstore.Store
	nats  *testkit.NATSServer
	srv   *workerserver.Server
	done  chan error
	stop  context.CancelFunc
}

func start(t *testing.T, mutate func(*workerserver.Config)) *env {
	t.Helper()
	ctx := context.Background()
	es := testkit.Store(t)
	n, nc := testkit.NATS(t)
	cfg := workerserver.Config{
		Store: es, NATS: nc, Concurrency: 2, LeaseTTL: 2 * time.Second,
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := workerserver.New(cfg)
	require.NoError(t, err)
	rctx, cancel := context.WithCancel(ctx)
	e := &env{store: es, trips: tripstore.New(es, nil), nats: n, srv: srv, done: make(chan error, 1), stop: cancel}
	go func() { e.done <- srv.Run(rctx) }()
	t.Cleanup(func() { cancel(); <-e.done })
	return e
}

// waitTerminal waits (a liveness bound, not a speed assertion) until every
// computation of the trip reached a terminal event, and returns the audit.
func waitTerminal(t *testing.T, es *postgres.Store, id uuid.UUID) pipelinetest.Report {
	t.Helper()
	var rep pipelinetest.Report
	require.Eventually(t, func() bool {
		var err error
		rep, err = pipelinetest.Audit(context.Background(), es, id)
		require.NoError(t, err)
		return rep.Terminal()
	}, 90*time.Second, 20*time.Millisecond, "the trip's computations never all reached a terminal event")
	return rep
}

func TestPipeline(t *testing.T) {
	t.Parallel()

	t.Run("an upload of the 627 km fixture is paced, analysed and audited clean", func(t *testing.T) {
		t.Parallel()
		e := start(t, nil)
		ctx := context.Background()
		up, err := pipelinetest.LoadUpload(ctx, e.trips, fixtures.Bytes(fixtures.OsloTrondheim))
		require.NoError(t, err)
		require.Greater(t, up.Info.DistanceM, 600_000.0)
		id, err := pipelinetest.CreateTrip(ctx, e.trips, "rider-1", up, trip.SettingsPatch{})
		require.NoError(t, err)

		rep := waitTerminal(t, e.store, id)
		require.Equal(t, 1, rep.Counts["StagesComputed"])
		require.Equal(t, 1, rep.Counts["AnalysisRequested"])
		require.Equal(t, 1, rep.Counts["AnalysisCompleted"])
		require.Zero(t, rep.Counts["AnalysisPartCompleted"], "no data provider to wait for: the offline rules land with the final result")

		l, err := e.trips.Load(ctx, tripstore.User("rider-1"), id)
		require.NoError(t, err)
		st := l.State
		require.Equal(t, trip.StatusReady, st.Status())
		require.Equal(t, trip.ComputationDone, st.StagesProgress.Status)
		// The intermediate rider: ≈ 38 h of modelled riding over 627 km,
		// 6 h a fresh day settling at 4.8 h: 8 days, each within the
		// 150 km cap and the rider's hours.
		require.Equal(t, 8, len(st.Stages))
		total := 0.0
		geometryAlerts := 0
		for _, s := range st.Stages {
			total += s.DistanceM
			require.True(t, s.Analyzed, "stage %d was analysed", s.Index)
			require.LessOrEqual(t, s.DistanceM, 150_000.0+1, "stage %d within the cap", s.Index)
			require.LessOrEqual(t, s.RiderTime(st.Settings).RidingHours, 6.0*(1+1e-6), "stage %d within the rider's day", s.Index)
			require.Equal(t, trip.Available, s.Families["geometry"])
			require.Equal(t, trip.NotConfigured, s.Families["weather"], "no weather provider: said so, not silent")
			require.Equal(t, trip.NotConfigured, s.Families["resupply"])
			for _, a := range s.Alerts {
				if a.Family == "geometry" {
					geometryAlerts++
				}
			}
		}
		require.InDelta(t, up.Info.DistanceM, total, up.Info.DistanceM*0.001, "one set of totals: the import's length is the days' sum")
		t.Logf("%d stages, %d geometry alerts, %v", len(st.Stages), geometryAlerts, rep.Counts)
		require.Positive(t, geometryAlerts, "a 627 km Norwegian route raises geometry alerts (gradients)")

		// No data provider to wait for: the labels land with the final
		// result, in one append (one transaction: one recorded_at), with
		// the ids each step derives alone, so a redelivery is a duplicate.
		evs, err := e.store.ReadStream(ctx, tripstore.StreamID(id), 0, 0)
		require.NoError(t, err)
		byType := map[string]eventstore.RecordedEvent{}
		var request uuid.UUID
		for _, ev := range evs {
			byType[ev.Type] = ev
			if _, ok := ev.Payload.(*eventsv1.AnalysisRequested); ok {
				request = ev.ID
			}
		}
		labels, done := byType[job.TypeName(&eventsv1.LabelsResolved{})], byType[job.TypeName(&eventsv1.AnalysisCompleted{})]
		require.Equal(t, labels.Version+1, done.Version, "the final result right after the labels")
		require.Equal(t, labels.RecordedAt, done.RecordedAt, "in the same transaction")
		require.Equal(t, consumer.DerivedID(request, "labels", 0), labels.ID)
		require.Equal(t, consumer.DerivedID(request, "analysis:final", 0), done.ID)
	})

	t.Run("a settings change re-paces the trip and re-analyses it", func(t *testing.T) {
		t.Parallel()
		e := start(t, nil)
		ctx := context.Background()
		pts := pipelinetest.Line(60.0, 10.0, 60.9, 10.0, 400) // ~100 km due north
		up, err := pipelinetest.Store(ctx, e.trips, "line.gpx", 1000, "line", pts, true)
		require.NoError(t, err)
		id, err := pipelinetest.CreateTrip(ctx, e.trips, "rider-2", up, trip.SettingsPatch{})
		require.NoError(t, err)
		waitTerminal(t, e.store, id)
		l, err := e.trips.Load(ctx, tripstore.User("rider-2"), id)
		require.NoError(t, err)
		before := len(l.State.Stages)

		cap := 30.0
		_, err = e.trips.Execute(ctx, tripstore.User("rider-2"), id, trip.UpdateSettings{Version: l.State.Version, Patch: trip.SettingsPatch{MaxDistancePerDayKm: &cap}}, tripstore.Options{})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			rep, err := pipelinetest.Audit(ctx, e.store, id)
			require.NoError(t, err)
			return rep.Counts["StagesComputed"] == 2 && rep.Terminal()
		}, 90*time.Second, 20*time.Millisecond)
		l, err = e.trips.Load(ctx, tripstore.User("rider-2"), id)
		require.NoError(t, err)
		require.Greater(t, len(l.State.Stages), before, "a 30 km cap makes more days than 80 km")
	})
}
