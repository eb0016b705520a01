package workerserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/consumer"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/provider"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

// pacedTripWithWaypoint is a ~50 km trip with its stages recorded and one
// waypoint (detour estimated) on its first stage.
func pacedTripWithWaypoint(t *testing.T, trips *tripstore.Store) (uuid.UUID, string) {
	t.Helper()
	ctx := context.Background()
	up, err := pipelinetest.Store(ctx, trips, "line.gpx", 1000, "line", pipelinetest.Line(59.91, 10.75, 60.35, 10.75, 200), true)
	require.NoError(t, err)
	id, err := pipelinetest.CreateTrip(ctx, trips, "rider-o", up, trip.SettingsPatch{})
	require.NoError(t, err)
	l, err := trips.Load(ctx, tripstore.System(), id)
	require.NoError(t, err)
	stages, over, err := trip.PlanStages(up.Points, *l.State.Route, l.State.Settings)
	require.NoError(t, err)
	_, err = trips.Execute(ctx, tripstore.System(), id, trip.RecordStagesComputed{For: l.State.StagesProgress.For, Stages: stages, OverCapacityDays: over}, tripstore.Options{})
	require.NoError(t, err)
	l, err = trips.Load(ctx, tripstore.System(), id)
	require.NoError(t, err)
	wid := uuid.NewString()
	on := l.State.Stages[0].Geometry[1]
	_, err = trips.Execute(ctx, tripstore.User("rider-o"), id, trip.AddWaypoint{Version: l.State.Version, ID: wid, Name: "Kiosk",
		Location: route.Point{Lat: on.Lat, Lon: on.Lon + 0.01}}, tripstore.Options{})
	require.NoError(t, err)
	return id, wid
}

func TestDetourOutage(t *testing.T) {
	t.Parallel()
	t.Run("a routing engine that is down is retried, and when its deliveries run out the estimate stays", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		es := testkit.Store(t)
		trips := tripstore.New(es, nil)
		id, wid := pacedTripWithWaypoint(t, trips)
		before, err := trips.Load(ctx, tripstore.System(), id)
		require.NoError(t, err)

		var hits atomic.Int32
		down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hits.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		t.Cleanup(down.Close)
		pacer, err := upstream.NewLocalPacer(time.Millisecond)
		require.NoError(t, err)
		c, err := upstream.New("osrm", upstream.WithBaseURL(down.URL), upstream.WithUserAgent(DefaultUserAgent),
			upstream.WithPacer(pacer), upstream.WithBreaker(2, time.Hour))
		require.NoError(t, err)
		o, err := provider.NewOSRM(c)
		require.NoError(t, err)
		w, err := consumer.NewWorkers(consumer.WorkersConfig{Trips: trips, Detours: detourRouter{o}})
		require.NoError(t, err)

		j := job.New(id, uuid.New(), job.DetourFor{WaypointIDs: []string{wid}})
		var last error
		for delivery := uint64(1); delivery <= stream.MaxDeliver; delivery++ {
			last = w.Handle(ctx, j, func() {})
			require.Error(t, last)
			want := consumer.Retry
			if delivery == stream.MaxDeliver {
				want = consumer.Fail
			}
			require.Equal(t, want, consumer.Settle(last, delivery, stream.MaxDeliver).Action, "delivery %d: %v", delivery, last)
		}
		require.ErrorIs(t, last, upstream.ErrCircuitOpen, "the breaker opened after two failures")
		require.Equal(t, int32(2), hits.Load(), "an open breaker sends nothing")
		require.NoError(t, w.RecordFailure(ctx, j, last, true), "giving up records nothing and is not an error")

		after, err := trips.Load(ctx, tripstore.System(), id)
		require.NoError(t, err)
		require.Equal(t, before.State.StreamVersion, after.State.StreamVersion, "nothing was recorded")
		_, wp, ok := after.State.WaypointByID(wid)
		require.True(t, ok)
		require.True(t, wp.DetourEstimated)
	})
}
