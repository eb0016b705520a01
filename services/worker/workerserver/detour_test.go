package workerserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/tripstore"
)

// osrmServer answers GET /route/v1/bicycle/{lon},{lat};… in OSRM's
// documented format: one route of distance metres, or — when distance is
// negative — NoRoute with HTTP 400, as OSRM does. It records the
// coordinates of every request.
type osrmServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests [][]route.Point
}

func newOSRMServer(t *testing.T, distance float64) *osrmServer {
	o := &osrmServer{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		coords, ok := strings.CutPrefix(r.URL.Path, "/route/v1/bicycle/")
		if r.Method != http.MethodGet || !ok || r.URL.Query().Get("overview") != "false" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"code":"InvalidUrl","message":"URL string malformed"}`))
			return
		}
		var pts []route.Point
		for _, c := range strings.Split(coords, ";") {
			lon, lat, _ := strings.Cut(c, ",")
			x, err1 := strconv.ParseFloat(lon, 64)
			y, err2 := strconv.ParseFloat(lat, 64)
			if err1 != nil || err2 != nil {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"code":"InvalidQuery","message":"Query string malformed"}`))
				return
			}
			pts = append(pts, route.Point{Lat: y, Lon: x})
		}
		o.mu.Lock()
		o.requests = append(o.requests, pts)
		o.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if distance < 0 {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"code":"NoRoute","message":"Impossible route between points"}`))
			return
		}
		d := strconv.FormatFloat(distance, 'f', -1, 64)
		_, _ = w.Write([]byte(`{"code":"Ok","routes":[{"distance":` + d + `,"duration":300.1,"weight":300.1,"weight_name":"cyclability",` +
			`"legs":[{"distance":` + d + `,"duration":300.1,"steps":[],"summary":"","weight":300.1}]}],` +
			`"waypoints":[{"hint":"","distance":1.2,"name":"","location":[10.75,59.91]}]}`))
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *osrmServer) seen() [][]route.Point {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([][]route.Point(nil), o.requests...)
}

// jobsDone is how many jobs of a kind ended with an action, read from the
// worker's registry.
func jobsDone(t *testing.T, reg *prometheus.Registry, kind, action string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != "roadbook_jobs_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["kind"] == kind && labels["action"] == action {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// addWaypoint waits for the trip's stages, then adds a waypoint ~600 m east
// of a point of the first stage the way the API does, and returns its id
// and the trip as the write left it.
func addWaypoint(t *testing.T, e *env, owner string, id uuid.UUID) (string, trip.State) {
	t.Helper()
	waitTerminal(t, e.store, id)
	l, err := e.trips.Load(context.Background(), tripstore.User(owner), id)
	require.NoError(t, err)
	on := l.State.Stages[0].Geometry[len(l.State.Stages[0].Geometry)/2]
	wid := uuid.NewString()
	res, err := e.trips.Execute(context.Background(), tripstore.User(owner), id, trip.AddWaypoint{
		Version: l.State.Version, StageIndex: 0, ID: wid, Name: "Spring", Category: "water",
		Location: route.Point{Lat: on.Lat, Lon: on.Lon + 0.01},
	}, tripstore.Options{})
	require.NoError(t, err)
	_, w, ok := res.State.WaypointByID(wid)
	require.True(t, ok)
	require.True(t, w.DetourEstimated, "a waypoint starts with the estimate")
	require.Positive(t, w.DetourM)
	return wid, res.State
}

// startRouted starts a worker whose routing engine is a fake OSRM answering
// distance (negative: NoRoute), with a registry to read its job counts.
func startRouted(t *testing.T, distance float64) (*osrmServer, *env, *prometheus.Registry) {
	t.Helper()
	osrm := newOSRMServer(t, distance)
	reg := prometheus.NewRegistry()
	e := start(t, func(c *workerserver.Config) {
		c.OSRMURL, c.UserAgent, c.ProviderInterval, c.Registry = osrm.URL, testUA, 5*time.Millisecond, reg
	})
	return osrm, e, reg
}

func TestDetours(t *testing.T) {
	t.Parallel()

	t.Run("with a routing engine the waypoint's estimate is replaced by the routed detour", func(t *testing.T) {
		t.Parallel()
		osrm, e, reg := startRouted(t, 1234.5)
		id := createLine(t, e, "rider-d", trip.SettingsPatch{})
		wid, added := addWaypoint(t, e, "rider-d", id)

		st := waitFor(t, e.trips, id, func(st trip.State) bool {
			_, w, ok := st.WaypointByID(wid)
			return ok && !w.DetourEstimated
		})
		stage, w, _ := st.WaypointByID(wid)
		require.Equal(t, 1234.5, w.DetourM, "routes[0].distance")
		require.Equal(t, added.Version, st.Version, "a routed detour does not move the trip version")

		reqs := osrm.seen()
		require.Len(t, reqs, 1, "one detour, one routing request")
		from := stage.NearestPoint(w.Location)
		require.Len(t, reqs[0], 3, "nearest route point → waypoint → back")
		require.InDelta(t, from.Lat, reqs[0][0].Lat, 1e-6)
		require.InDelta(t, from.Lon, reqs[0][0].Lon, 1e-6)
		require.InDelta(t, w.Location.Lat, reqs[0][1].Lat, 1e-6)
		require.InDelta(t, w.Location.Lon, reqs[0][1].Lon, 1e-6)
		require.Equal(t, reqs[0][0], reqs[0][2])
		require.Eventually(t, func() bool { return jobsDone(t, reg, "detour", "ack") == 1 }, 30*time.Second, 20*time.Millisecond)
	})

	t.Run("an edit of their stage puts its waypoints back on the estimate and one job routes them again", func(t *testing.T) {
		t.Parallel()
		_, e, reg := startRouted(t, 1234.5)
		id := createLine(t, e, "rider-x", trip.SettingsPatch{})
		w1, _ := addWaypoint(t, e, "rider-x", id)
		w2, _ := addWaypoint(t, e, "rider-x", id)
		bothRouted := func(st trip.State) bool {
			_, a, okA := st.WaypointByID(w1)
			_, b, okB := st.WaypointByID(w2)
			return okA && okB && !a.DetourEstimated && !b.DetourEstimated
		}
		routed := waitFor(t, e.trips, id, bothRouted)
		require.Eventually(t, func() bool { return jobsDone(t, reg, "detour", "ack") == 2 }, 30*time.Second, 20*time.Millisecond,
			"one detour job per waypoint added")

		// The rider ends the first day earlier, three quarters of the way
		// along it (the line is straight): the lines of the first two days
		// change under the waypoints.
		a, b := routed.Stages[0].Start, routed.Stages[0].End
		end := route.Point{Lat: a.Lat + 0.75*(b.Lat-a.Lat), Lon: a.Lon + 0.75*(b.Lon-a.Lon)}
		edited, err := e.trips.Execute(context.Background(), tripstore.User("rider-x"), id,
			trip.UpdateStage{Version: routed.Version, Index: 0, End: &end}, tripstore.Options{})
		require.NoError(t, err)
		for _, wid := range []string{w1, w2} {
			_, w, ok := edited.State.WaypointByID(wid)
			require.True(t, ok)
			require.True(t, w.DetourEstimated, "the routed detour measured the old line")
		}

		st := waitFor(t, e.trips, id, bothRouted)
		for _, wid := range []string{w1, w2} {
			_, w, _ := st.WaypointByID(wid)
			require.Equal(t, 1234.5, w.DetourM)
		}
		// One job for the edit's analysis routed both: two routed events
		// from one request need ids of their own.
		require.Eventually(t, func() bool { return jobsDone(t, reg, "detour", "ack") == 3 }, 30*time.Second, 20*time.Millisecond)
		require.Zero(t, jobsDone(t, reg, "detour", "retry"))
	})

	t.Run("when the routing engine finds no route the estimate stays", func(t *testing.T) {
		t.Parallel()
		osrm, e, reg := startRouted(t, -1)
		id := createLine(t, e, "rider-r", trip.SettingsPatch{})
		wid, added := addWaypoint(t, e, "rider-r", id)

		require.Eventually(t, func() bool { return jobsDone(t, reg, "detour", "ack") >= 1 }, 60*time.Second, 20*time.Millisecond,
			"the detour job ends (acked) on NoRoute")
		require.Len(t, osrm.seen(), 1, "NoRoute is not retried")
		require.Zero(t, jobsDone(t, reg, "detour", "retry"))
		l, err := e.trips.Load(context.Background(), tripstore.System(), id)
		require.NoError(t, err)
		_, w, ok := l.State.WaypointByID(wid)
		require.True(t, ok)
		require.True(t, w.DetourEstimated, "still said to be an estimate")
		_, before, _ := added.WaypointByID(wid)
		require.Equal(t, before.DetourM, w.DetourM)
		require.Equal(t, added.StreamVersion, l.State.StreamVersion, "nothing was recorded")
	})

	t.Run("without a routing engine the estimate stays and the job does nothing", func(t *testing.T) {
		t.Parallel()
		reg := prometheus.NewRegistry()
		e := start(t, func(c *workerserver.Config) { c.Registry = reg })
		id := createLine(t, e, "rider-e", trip.SettingsPatch{})
		wid, added := addWaypoint(t, e, "rider-e", id)

		require.Eventually(t, func() bool { return jobsDone(t, reg, "detour", "ack") >= 1 }, 60*time.Second, 20*time.Millisecond,
			"the detour job is acked")
		l, err := e.trips.Load(context.Background(), tripstore.System(), id)
		require.NoError(t, err)
		_, w, ok := l.State.WaypointByID(wid)
		require.True(t, ok)
		require.True(t, w.DetourEstimated)
		require.Equal(t, added.StreamVersion, l.State.StreamVersion, "nothing was recorded")
	})
}
