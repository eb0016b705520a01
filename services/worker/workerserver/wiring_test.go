package workerserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

const testUA = "Roadbook-test/1 (tests@roadbook.example)"

// komootServer replays the recorded-shape Komoot tour page, refusing
// requests without the identifying User-Agent.
func komootServer(t *testing.T, hits *atomic.Int32) *httptest.Server {
	page, err := os.ReadFile("testdata/tour_1234567890.html")
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("User-Agent") != testUA {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		if r.URL.Path != "/tour/1234567890" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// overpassServer answers Overpass QL POSTs in the documented JSON format:
// for the analysis' stage query ("out tags geom"), the trunk road createLine
// runs on and nothing else (so every stage has a resupply gap and no health
// service near); hotels and a camp site near any stage end for
// accommodation queries.
func overpassServer(t *testing.T, hits *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		q := r.PostFormValue("data")
		if r.Method != http.MethodPost || r.URL.Path != "/api/interpreter" || !strings.HasPrefix(q, "[out:json]") {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var els []map[string]any
		switch {
		case strings.Contains(q, "out tags geom"):
			els = []map[string]any{{"type": "way", "id": 7, "tags": map[string]string{"highway": "trunk", "ref": "E6"},
				"geometry": []map[string]float64{{"lat": 59.91, "lon": 10.75}, {"lat": 60.8, "lon": 10.7}}}}
		case strings.Contains(q, `"tourism"`):
			lat, lon := aroundPoint(t, q)
			els = []map[string]any{
				{"type": "node", "id": 1, "lat": lat + 0.001, "lon": lon, "tags": map[string]string{"tourism": "hotel", "name": "Hotel Nord", "website": "https://hotel.example", "stars": "3"}},
				{"type": "node", "id": 2, "lat": lat, "lon": lon + 0.002, "tags": map[string]string{"tourism": "camp_site", "name": "Camp", "fee": "no"}},
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"version": 0.6, "generator": "Overpass API", "elements": els})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// aroundPoint reads the centre of an "(around:R,lat,lon)" filter.
func aroundPoint(t *testing.T, q string) (float64, float64) {
	i := strings.Index(q, "around:")
	require.GreaterOrEqual(t, i, 0, q)
	var r, lat, lon float64
	_, err := fmt.Sscanf(strings.ReplaceAll(q[i+len("around:"):], ",", " "), "%g %g %g", &r, &lat, &lon)
	require.NoError(t, err, q)
	return lat, lon
}

// openMeteoServer answers /v1/forecast in the documented daily format: a
// hot, humid, rainy day with a 30 km/h wind from the north.
func openMeteoServer(t *testing.T, hits *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		q := r.URL.Query()
		if r.URL.Path != "/v1/forecast" || q.Get("latitude") == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_, _ = fmt.Fprintf(w, `{"latitude":%s,"longitude":%s,"timezone":"Europe/Oslo","daily_units":{"time":"iso8601","temperature_2m_max":"°C","wind_speed_10m_max":"km/h"},"daily":{"time":[%q],"temperature_2m_max":[38.0],"wind_speed_10m_max":[30.0],"wind_direction_10m_dominant":[0],"relative_humidity_2m_mean":[90],"precipitation_probability_max":[80]}}`,
			q.Get("latitude"), q.Get("longitude"), q.Get("start_date"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// waitFor polls the trip until ok (a liveness bound, not a speed assertion).
func waitFor(t *testing.T, trips *tripstore.Store, id uuid.UUID, ok func(trip.State) bool) trip.State {
	t.Helper()
	var st trip.State
	require.Eventually(t, func() bool {
		l, err := trips.Load(context.Background(), tripstore.System(), id)
		require.NoError(t, err)
		st = l.State
		return ok(st)
	}, 60*time.Second, 20*time.Millisecond)
	return st
}

func TestWiring(t *testing.T) {
	t.Parallel()

	t.Run("a trip created from a Komoot URL is fetched from the source, paced and labelled by the gazetteer", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		komoot := komootServer(t, &hits)
		e := start(t, func(c *workerserver.Config) {
			c.KomootURL, c.UserAgent, c.AllowLoopbackFetch = komoot.URL, testUA, true
		})
		ctx := context.Background()
		id := uuid.New()
		_, err := e.trips.Execute(ctx, tripstore.User("rider-k"), id, trip.Create{SourceURL: "https://www.komoot.com/tour/1234567890"}, tripstore.Options{})
		require.NoError(t, err)
		rep := waitTerminal(t, e.store, id)
		require.Equal(t, 1, rep.Counts["RouteImported"], "%v", rep.Counts)
		require.Equal(t, 1, rep.Counts["AnalysisCompleted"])
		require.Positive(t, hits.Load(), "the fetcher asked the configured Komoot, not komoot.com")

		st := waitFor(t, e.trips, id, func(st trip.State) bool { return len(st.Stages) > 0 && st.Stages[0].Labelled })
		require.Equal(t, trip.ComputationDone, st.RouteImport.Status)
		require.Equal(t, 400, st.Route.PointCount)
		for _, s := range st.Stages {
			require.True(t, s.Labelled, "stage %d labelled", s.Index)
		}
		require.Equal(t, "Oslo", st.Stages[0].StartLabel, "the tour starts in Oslo")
		require.NotEmpty(t, st.Stages[len(st.Stages)-1].EndLabel)
	})

	t.Run("the SSRF guard still refuses a loopback source when AllowLoopbackFetch is off", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		komoot := komootServer(t, &hits)
		e := start(t, func(c *workerserver.Config) { c.KomootURL, c.UserAgent = komoot.URL, testUA })
		ctx := context.Background()
		id := uuid.New()
		_, err := e.trips.Execute(ctx, tripstore.User("rider-s"), id, trip.Create{SourceURL: "https://www.komoot.com/tour/1234567890"}, tripstore.Options{})
		require.NoError(t, err)
		st := waitFor(t, e.trips, id, func(st trip.State) bool { return st.RouteImport.Status == trip.ComputationFailed })
		require.Contains(t, st.RouteImport.Reason, "loopback")
		require.Zero(t, hits.Load(), "refused at dial time: the server never saw a request")
	})

	t.Run("configured data providers evaluate the weather and the six OSM families and search accommodations", func(t *testing.T) {
		t.Parallel()
		var overpassHits, meteoHits atomic.Int32
		overpass, meteo := overpassServer(t, &overpassHits), openMeteoServer(t, &meteoHits)
		e := start(t, func(c *workerserver.Config) {
			c.OverpassURL, c.OpenMeteoURL, c.UserAgent, c.ProviderInterval = overpass.URL, meteo.URL, testUA, 5*time.Millisecond
		})
		ctx := context.Background()
		start := trip.DateOf(time.Now().AddDate(0, 0, 1))
		id := createLine(t, e, "rider-p", trip.SettingsPatch{StartDate: &start})
		waitTerminal(t, e.store, id)
		st := waitFor(t, e.trips, id, func(st trip.State) bool { return st.Stages[0].Analyzed })
		codes, families := map[string]int{}, map[string]trip.Family{}
		for _, s := range st.Stages {
			for _, f := range append(osmFamilies, "weather") {
				require.Equal(t, trip.Available, s.Families[f], "stage %d, family %s", s.Index, f)
			}
			for _, a := range s.Alerts {
				codes[a.Code]++
				families[a.Code] = a.Family
			}
		}
		n := len(st.Stages)
		require.Equal(t, n, codes["resupply_gap"], "no shop anywhere: every stage has a resupply gap: %v", codes)
		require.Equal(t, n, codes["traffic_primary_road"], "every stage runs on the trunk road: %v", codes)
		require.Equal(t, n, codes["no_health_service"], "no health service anywhere: %v", codes)
		require.Positive(t, codes["weather_comfort_low"], "38 °C, 90 %% humidity, rain: %v", codes)
		want := map[string]trip.Family{
			"resupply_gap": "resupply", "water_gap": "resupply", "traffic_primary_road": "traffic",
			"no_bike_shop": "services", "no_railway_station": "services", "no_health_service": "services",
			"weather_comfort_low": "weather", "headwind": "weather",
		}
		for code, family := range families {
			if w, ok := want[code]; ok {
				require.Equal(t, w, family, "%s is recorded in its own family", code)
			}
		}
		require.Empty(t, st.Stages[0].Offered, "accommodations have their own job")

		_, err := e.trips.Execute(ctx, tripstore.User("rider-p"), id, trip.RescanAccommodations{Version: st.Version, RadiusM: 5000}, tripstore.Options{})
		require.NoError(t, err)
		st = waitFor(t, e.trips, id, func(st trip.State) bool { return len(st.Stages[0].Offered) > 0 })
		for _, s := range st.Stages {
			require.Len(t, s.Offered, 2, "stage %d: the hotel and the camp site", s.Index)
			require.Less(t, s.Offered[0].DistanceFromStageEndM, 500.0)
		}
		require.Equal(t, "Hotel Nord", st.Stages[0].Offered[0].Name)
	})

	t.Run("a failing Overpass makes the six OSM families unavailable and the weather still runs", func(t *testing.T) {
		t.Parallel()
		var overpassHits, meteoHits atomic.Int32
		overpass := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			overpassHits.Add(1)
			w.WriteHeader(http.StatusGatewayTimeout)
		}))
		t.Cleanup(overpass.Close)
		meteo := openMeteoServer(t, &meteoHits)
		e := start(t, func(c *workerserver.Config) {
			c.OverpassURL, c.OpenMeteoURL, c.UserAgent, c.ProviderInterval = overpass.URL, meteo.URL, testUA, 5*time.Millisecond
		})
		start := trip.DateOf(time.Now().AddDate(0, 0, 1))
		id := createLine(t, e, "rider-f", trip.SettingsPatch{StartDate: &start})
		waitTerminal(t, e.store, id)
		st := waitFor(t, e.trips, id, func(st trip.State) bool { return st.Stages[0].Analyzed })
		require.Positive(t, overpassHits.Load())
		for _, s := range st.Stages {
			for _, f := range osmFamilies {
				require.Equal(t, trip.Unavailable, s.Families[f], "stage %d, family %s", s.Index, f)
				require.Equal(t, "overpass: unavailable", s.FamilyReasons[f], "the reason is recorded with the family, in Roadbook's words")
			}
			require.Equal(t, trip.Available, s.Families["weather"], "stage %d", s.Index)
			require.NotContains(t, s.FamilyReasons, "weather", "a family that ran has no reason")
			for _, a := range s.Alerts {
				require.NotContains(t, osmFamilies, a.Family, "no OSM finding without OSM data: %v", a)
			}
		}
	})

	t.Run("without providers the families and an accommodation search are not_configured", func(t *testing.T) {
		t.Parallel()
		e := start(t, nil)
		ctx := context.Background()
		id := createLine(t, e, "rider-n", trip.SettingsPatch{})
		waitTerminal(t, e.store, id)
		st := waitFor(t, e.trips, id, func(st trip.State) bool { return st.Stages[0].Analyzed })
		for _, f := range append(osmFamilies, "weather") {
			require.Equal(t, trip.NotConfigured, st.Stages[0].Families[f], f)
		}
		_, err := e.trips.Execute(ctx, tripstore.User("rider-n"), id, trip.RescanAccommodations{Version: st.Version, RadiusM: 5000}, tripstore.Options{})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			evs, err := e.store.ReadStream(ctx, tripstore.StreamID(id), 0, 1000)
			require.NoError(t, err)
			for _, ev := range evs {
				if strings.HasSuffix(ev.Type, "AccommodationsFound") {
					return strings.Contains(fmt.Sprint(ev.Payload), "NOT_CONFIGURED")
				}
			}
			return false
		}, 60*time.Second, 20*time.Millisecond, "the search is recorded not_configured, never silently empty")
	})

	t.Run("with no geocoder the labels are recorded unavailable with the reason", func(t *testing.T) {
		t.Parallel()
		e := start(t, func(c *workerserver.Config) { c.Geocoder = workerserver.GeocoderNone })
		id := createLine(t, e, "rider-g", trip.SettingsPatch{})
		waitTerminal(t, e.store, id)
		st := waitFor(t, e.trips, id, func(st trip.State) bool { return st.Stages[0].LabelsUnavailable != "" })
		for _, s := range st.Stages {
			require.False(t, s.Labelled)
			require.Equal(t, "no geocoder is configured", s.LabelsUnavailable)
		}
	})

	t.Run("an unknown geocoder is refused naming it", func(t *testing.T) {
		t.Parallel()
		e := start(t, nil)
		nc, err := testkit.Connect(e.nats.URL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		_, err = workerserver.New(workerserver.Config{Store: e.store, NATS: nc, Geocoder: "google"})
		require.ErrorIs(t, err, workerserver.ErrInvalidConfig)
		require.ErrorContains(t, err, `"google"`)
	})
}

// osmFamilies are the rule families the Overpass rules evaluate.
var osmFamilies = []trip.Family{"traffic", "surface", "resupply", "services", "crossings", "culture"}

// createLine creates a ~100 km trip due north from Oslo (two stages at a
// 60 km cap).
func createLine(t *testing.T, e *env, owner string, patch trip.SettingsPatch) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	pts := pipelinetest.Line(59.91, 10.75, 60.8, 10.7, 300)
	cap := 60.0
	patch.MaxDistancePerDayKm = &cap
	up, err := pipelinetest.Store(ctx, e.trips, "line.gpx", 1000, "line", pts, true)
	require.NoError(t, err)
	id, err := pipelinetest.CreateTrip(ctx, e.trips, owner, up, patch)
	require.NoError(t, err)
	return id
}
