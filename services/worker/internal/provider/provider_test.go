package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/worker/internal/provider"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

const testUA = "Roadbook-test/1.0 (tests@roadbook.invalid)"

// northLine is an 80 km stage heading due north from Oslo, a point every
// ~100 m.
func northLine() []route.Point {
	const n = 801
	pts := make([]route.Point, n)
	for i := range pts {
		pts[i] = route.Point{Lat: 59.9 + float64(i)*0.000898, Lon: 10.75}
	}
	return pts
}

// atKm is the point of northLine about km from the start.
func atKm(km float64) route.Point { return route.Point{Lat: 59.9 + km*0.00898, Lon: 10.7505} }

func client(t *testing.T, name, base string, opts ...upstream.Option) *upstream.Client {
	t.Helper()
	p, err := upstream.NewLocalPacer(time.Millisecond)
	require.NoError(t, err)
	c, err := upstream.New(name, append([]upstream.Option{upstream.WithBaseURL(base), upstream.WithUserAgent(testUA), upstream.WithPacer(p)}, opts...)...)
	require.NoError(t, err)
	return c
}

type element map[string]any

func node(id int64, p route.Point, tags map[string]string) element {
	return element{"type": "node", "id": id, "lat": p.Lat, "lon": p.Lon, "tags": tags}
}

// overpassServer answers Overpass QL POSTs in the documented JSON format:
// accommodations for tourism queries, resupply and water for the stage
// query.
func overpassServer(t *testing.T, hits *atomic.Int32, status *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if st := status.Load(); st != 0 {
			if st == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "1")
			}
			w.WriteHeader(int(st))
			return
		}
		if r.Method != http.MethodPost || r.URL.Path != "/api/interpreter" || r.Header.Get("User-Agent") != testUA {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		q := r.PostFormValue("data")
		if !strings.HasPrefix(q, "[out:json]") || !strings.Contains(q, "around:") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"remark":"bad query"}`))
			return
		}
		var els []element
		switch {
		case strings.Contains(q, "out tags geom"): // the stage query (it names tourism too)
			els = []element{
				node(10, atKm(5), map[string]string{"shop": "supermarket"}),
				node(11, atKm(60), map[string]string{"shop": "convenience"}),
				node(12, atKm(20), map[string]string{"amenity": "drinking_water"}),
				node(13, atKm(40), map[string]string{"amenity": "drinking_water"}),
			}
		case strings.Contains(q, `"tourism"`):
			els = []element{
				node(1, atKm(80), map[string]string{"tourism": "hotel", "name": "Hotel Nord", "website": "https://hotel.example", "stars": "3"}),
				node(2, atKm(79.5), map[string]string{"tourism": "camp_site", "name": "Camp", "fee": "no"}),
				node(3, atKm(79), map[string]string{"tourism": "museum", "name": "Not a bed"}),
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"version": 0.6, "generator": "Overpass API", "elements": els})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// openMeteoServer answers /v1/forecast in the documented daily format: a
// hot, humid, rainy day with a 30 km/h wind from the north.
func openMeteoServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/v1/forecast" || q.Get("latitude") == "" || q.Get("longitude") == "" || !strings.Contains(q.Get("daily"), "wind_direction_10m_dominant") {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		day := q.Get("start_date")
		_, _ = fmt.Fprintf(w, `{"latitude":%s,"longitude":%s,"generationtime_ms":0.1,"utc_offset_seconds":7200,"timezone":"Europe/Oslo","timezone_abbreviation":"GMT+2","elevation":23.0,`+
			`"daily_units":{"time":"iso8601","temperature_2m_max":"°C","temperature_2m_min":"°C","precipitation_sum":"mm","precipitation_probability_max":"%%","wind_speed_10m_max":"km/h","wind_direction_10m_dominant":"°","relative_humidity_2m_mean":"%%"},`+
			`"daily":{"time":[%q],"temperature_2m_max":[38.0],"temperature_2m_min":[24.1],"precipitation_sum":[12.4],"wind_speed_10m_max":[30.0],"wind_direction_10m_dominant":[0],"relative_humidity_2m_mean":[90],"precipitation_probability_max":[80]}}`,
			q.Get("latitude"), q.Get("longitude"), day)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func stages() []provider.Stage {
	pts := northLine()
	return []provider.Stage{{Index: 0, Date: time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC), Start: pts[0], End: pts[len(pts)-1], Points: pts}}
}

func availability(t *testing.T, res provider.Result, f alert.RuleFamily) alert.Availability {
	t.Helper()
	for _, a := range res.Availability {
		if a.Family == f {
			return a
		}
	}
	t.Fatalf("no availability for %s", f)
	return alert.Availability{}
}

func codes(as []alert.Alert) []alert.Code {
	var out []alert.Code
	for _, a := range as {
		out = append(out, a.Code)
	}
	return out
}

func TestAnalyzer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("finds accommodations, a resupply gap and the weather alerts", func(t *testing.T) {
		t.Parallel()
		var hits, status atomic.Int32
		op, err := provider.NewOverpass(client(t, "overpass", overpassServer(t, &hits, &status).URL))
		require.NoError(t, err)
		om, err := provider.NewOpenMeteo(client(t, "openmeteo", openMeteoServer(t).URL))
		require.NoError(t, err)
		om.WithClock(func() time.Time { return time.Date(2025, 5, 30, 9, 0, 0, 0, time.UTC) })
		a := provider.Analyzer{Overpass: op, Weather: om}
		res, err := a.Analyze(ctx, stages())
		require.NoError(t, err)
		require.Equal(t, alert.StatusEvaluated, availability(t, res, alert.FamilyOSM).Status)
		require.Equal(t, alert.StatusEvaluated, availability(t, res, alert.FamilyWeather).Status)

		accs := res.Accommodations[0]
		require.Len(t, accs, 2, "the museum is not an accommodation")
		require.Equal(t, "Hotel Nord", accs[0].Name, "the more complete candidate ranks first")

		got := codes(res.Alerts)
		require.Contains(t, got, alert.CodeResupplyGap)
		require.NotContains(t, got, alert.CodeWaterGap, "water every ≤ 20 km")
		require.Contains(t, got, alert.CodeWeatherComfortLow)
		require.Contains(t, got, alert.CodeHeadwind)
		for _, al := range res.Alerts {
			if al.Code == alert.CodeWeatherComfortLow {
				require.Equal(t, 34.0, al.Value, "100 − 16 (38 °C) − 15 (30 km/h) − 5 (90 %) − 30 (80 %)")
			}
			if al.Code == alert.CodeResupplyGap {
				require.InDelta(t, 55, al.Value, 1.5, "between the shops at km 5 and km 60")
			}
		}
	})

	t.Run("providers that are off make their families unavailable, not silent", func(t *testing.T) {
		t.Parallel()
		res, err := (&provider.Analyzer{}).Analyze(ctx, stages())
		require.NoError(t, err)
		require.Empty(t, res.Alerts)
		osm := availability(t, res, alert.FamilyOSM)
		require.Equal(t, alert.StatusUnavailable, osm.Status)
		require.Equal(t, "OSM data provider not configured", osm.Reason)
		w := availability(t, res, alert.FamilyWeather)
		require.Equal(t, alert.StatusUnavailable, w.Status)
		require.Equal(t, "weather provider not configured", w.Reason)
	})

	t.Run("429 and 503 open the breaker; the family is unavailable; a half-open probe closes it", func(t *testing.T) {
		t.Parallel()
		var hits, status atomic.Int32
		status.Store(http.StatusTooManyRequests)
		srv := overpassServer(t, &hits, &status)
		op, err := provider.NewOverpass(client(t, "overpass", srv.URL, upstream.WithBreaker(2, 50*time.Millisecond)))
		require.NoError(t, err)
		a := provider.Analyzer{Overpass: op}
		st := stages()

		res, err := a.Analyze(ctx, st)
		require.NoError(t, err)
		require.Equal(t, alert.Unavailable(alert.FamilyOSM, "overpass: rate limited"), availability(t, res, alert.FamilyOSM))
		require.Equal(t, int32(1), hits.Load())

		res, err = a.Analyze(ctx, st)
		require.NoError(t, err)
		require.Equal(t, "overpass: circuit breaker open", availability(t, res, alert.FamilyOSM).Reason)
		require.Equal(t, int32(1), hits.Load(), "nothing is sent while the breaker is open")

		status.Store(http.StatusServiceUnavailable)
		time.Sleep(1050 * time.Millisecond) // Retry-After: 1
		res, err = a.Analyze(ctx, st)
		require.NoError(t, err)
		require.Equal(t, "overpass: unavailable", availability(t, res, alert.FamilyOSM).Reason, "the half-open probe met a 503")
		require.Equal(t, int32(2), hits.Load())
		res, err = a.Analyze(ctx, st)
		require.NoError(t, err)
		require.Equal(t, "overpass: circuit breaker open", availability(t, res, alert.FamilyOSM).Reason)
		require.Equal(t, int32(2), hits.Load())

		status.Store(0)
		time.Sleep(60 * time.Millisecond)
		res, err = a.Analyze(ctx, st)
		require.NoError(t, err)
		require.Equal(t, alert.StatusEvaluated, availability(t, res, alert.FamilyOSM).Status)
		require.Contains(t, codes(res.Alerts), alert.CodeResupplyGap)
	})

	t.Run("a trip without dates has no forecast to ask for", func(t *testing.T) {
		t.Parallel()
		om, err := provider.NewOpenMeteo(client(t, "openmeteo", openMeteoServer(t).URL))
		require.NoError(t, err)
		st := stages()
		st[0].Date = time.Time{}
		res, err := (&provider.Analyzer{Weather: om}).Analyze(ctx, st)
		require.NoError(t, err)
		require.Equal(t, alert.Unavailable(alert.FamilyWeather, "the trip has no dates to forecast"), availability(t, res, alert.FamilyWeather))
	})
}

func TestOSRM(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the routed detour comes from routes[0].distance", func(t *testing.T) {
		t.Parallel()
		var path atomic.Value
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path.Store(r.URL.Path)
			_, _ = w.Write([]byte(`{"code":"Ok","routes":[{"distance":2345.6,"duration":500.1,"legs":[]}],"waypoints":[]}`))
		}))
		t.Cleanup(srv.Close)
		o, err := provider.NewOSRM(client(t, "osrm", srv.URL))
		require.NoError(t, err)
		from, wpt := route.Point{Lat: 59.9, Lon: 10.75}, route.Point{Lat: 59.91, Lon: 10.76}
		d, routed, err := provider.Detour(ctx, o, from, wpt)
		require.NoError(t, err)
		require.True(t, routed)
		require.Equal(t, 2345.6, d)
		require.Equal(t, "/route/v1/bicycle/10.750000,59.900000;10.760000,59.910000;10.750000,59.900000", path.Load())
	})

	t.Run("without a routing engine the detour is twice the straight line, flagged as an estimate", func(t *testing.T) {
		t.Parallel()
		from, wpt := route.Point{Lat: 59.9, Lon: 10.75}, route.Point{Lat: 59.91, Lon: 10.75}
		d, routed, err := provider.Detour(ctx, nil, from, wpt)
		require.NoError(t, err)
		require.False(t, routed)
		require.InDelta(t, 2*route.Haversine(from, wpt), d, 1e-9)
	})

	t.Run("NoRoute is an error, not a zero distance", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"code":"NoRoute","message":"Impossible route between points"}`))
		}))
		t.Cleanup(srv.Close)
		o, err := provider.NewOSRM(client(t, "osrm", srv.URL))
		require.NoError(t, err)
		_, err = o.Distance(ctx, route.Point{Lat: 1, Lon: 1}, route.Point{Lat: 2, Lon: 2})
		require.ErrorIs(t, err, provider.ErrNoRoute)
	})
}
