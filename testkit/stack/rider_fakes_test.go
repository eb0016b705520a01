package stack_test

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The fakes of the rider end-to-end test answer in the providers'
// documented formats with realistic content generated along whatever route
// they are asked about: an Overpass that knows, for every stage query, the
// drinking water, shops, cafés and a ford a Norwegian valley road has, and
// an Open-Meteo with a forecast and an archive (ERA5) endpoint.

// aroundLineRe reads the polyline of the stage query's resupply selector
// (nwr(around:R,lat,lon,…)["shop"…]).
var aroundLineRe = regexp.MustCompile(`nwr\(around:\d+,([^)]*)\)\["shop"`)

// routeOverpass places, along the sampled line of each stage query (a
// vertex about every kilometre): drinking water every 11 km, a supermarket
// every 23 km with real Norwegian hours (closed on Sundays), a café every
// 31 km, a spring, a ford on km 9, and a cobbled street on the first
// kilometre; hotels and a seasonal camp site near any point an
// accommodation query asks about.
func routeOverpass(t *testing.T, hits *atomic.Int32) *httptest.Server {
	shops := []string{"Coop Extra", "Rema 1000", "Kiwi", "Joker", "Bunnpris"}
	cafes := []string{"Kafé Stasjonen", "Veikroa", "Bakeriet"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		q := r.PostFormValue("data")
		if r.Method != http.MethodPost || r.URL.Path != "/api/interpreter" || !strings.HasPrefix(q, "[out:json]") || r.Header.Get("User-Agent") != riderUA {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var els []map[string]any
		node := func(lat, lon float64, tags map[string]string) {
			h := fnv.New64a()
			fmt.Fprintf(h, "%.6f,%.6f,%s", lat, lon, tags["name"]+tags["amenity"]+tags["shop"]+tags["natural"])
			els = append(els, map[string]any{"type": "node", "id": int64(h.Sum64() >> 12), "lat": lat, "lon": lon, "tags": tags})
		}
		switch {
		case strings.Contains(q, "out tags geom"):
			m := aroundLineRe.FindStringSubmatch(q)
			if m == nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			line := parseLine(t, m[1])
			east := func(lat, lon, metres float64) (float64, float64) {
				return lat, lon + metres/(111320*math.Cos(lat*math.Pi/180))
			}
			for i, p := range line {
				switch {
				case i > 0 && i%11 == 0:
					lat, lon := east(p[0], p[1], 60)
					node(lat, lon, map[string]string{"amenity": "drinking_water", "name": "Drikkevann"})
				case i > 0 && i%23 == 0:
					lat, lon := east(p[0], p[1], 180)
					node(lat, lon, map[string]string{"shop": "supermarket", "name": shops[(i/23)%len(shops)],
						"opening_hours": "Mo-Fr 07:00-23:00; Sa 08:00-22:00; Su off"})
				case i > 0 && i%31 == 0:
					lat, lon := east(p[0], p[1], 90)
					node(lat, lon, map[string]string{"amenity": "cafe", "name": cafes[(i/31)%len(cafes)], "opening_hours": "Mo-Su 10:00-18:00"})
				case i == 17:
					lat, lon := east(p[0], p[1], 250)
					node(lat, lon, map[string]string{"natural": "spring"})
				case i == 9:
					node(p[0], p[1], map[string]string{"ford": "yes"})
				}
			}
			if len(line) > 2 {
				els = append(els, map[string]any{"type": "way", "id": 900000 + len(line), "tags": map[string]string{"highway": "residential", "surface": "sett"},
					"geometry": []map[string]float64{{"lat": line[0][0], "lon": line[0][1]}, {"lat": line[1][0], "lon": line[1][1]}}})
			}
		case strings.Contains(q, `"tourism"`):
			lat, lon := aroundPoint(t, q)
			els = append(els,
				map[string]any{"type": "node", "id": 1, "lat": lat + 0.001, "lon": lon, "tags": map[string]string{"tourism": "hotel", "name": "Hotel Nord", "website": "https://hotel.example", "stars": "3"}},
				map[string]any{"type": "node", "id": 2, "lat": lat, "lon": lon + 0.002, "tags": map[string]string{"tourism": "camp_site", "name": "Elvecamping", "fee": "no", "seasonal": "yes"}},
			)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"version": 0.6, "generator": "Overpass API 0.7.62", "osm3s": map[string]string{"copyright": "The data included in this document is from www.openstreetmap.org. The data is made available under ODbL."}, "elements": els})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// aroundPoint reads the centre of an accommodation query's
// nwr(around:R,lat,lon) selector.
func aroundPoint(t *testing.T, q string) (float64, float64) {
	i := strings.Index(q, "around:")
	require.GreaterOrEqual(t, i, 0, q)
	var r, lat, lon float64
	_, err := fmt.Sscanf(strings.ReplaceAll(q[i+len("around:"):], ",", " "), "%g %g %g", &r, &lat, &lon)
	require.NoError(t, err, q)
	return lat, lon
}

// parseLine reads "lat,lon,lat,lon,…".
func parseLine(t *testing.T, s string) [][2]float64 {
	f := strings.Split(s, ",")
	var out [][2]float64
	for i := 0; i+1 < len(f); i += 2 {
		lat, err1 := strconv.ParseFloat(f[i], 64)
		lon, err2 := strconv.ParseFloat(f[i+1], 64)
		if err1 != nil || err2 != nil {
			t.Errorf("bad around line %q", s)
			return nil
		}
		out = append(out, [2]float64{lat, lon})
	}
	return out
}

// routeOpenMeteo answers /v1/forecast (16 days from today: a cold December
// day, 14 mm of rain on odd days of the month, a 28 km/h wind from the
// north) and /v1/archive (past years: a mild west wind) in Open-Meteo's
// documented JSON, a list of places when several are asked for, a 400
// {"error":true,"reason":…} outside each endpoint's range.
func routeOpenMeteo(t *testing.T, hits *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		q := r.URL.Query()
		lats, lons := strings.Split(q.Get("latitude"), ","), strings.Split(q.Get("longitude"), ",")
		start, err1 := time.Parse(time.DateOnly, q.Get("start_date"))
		end, err2 := time.Parse(time.DateOnly, q.Get("end_date"))
		today := time.Now().UTC().Truncate(24 * time.Hour)
		bad := func(reason string) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"error":true,"reason":%q}`, reason)
		}
		switch {
		case len(lats) != len(lons) || err1 != nil || err2 != nil || r.Header.Get("User-Agent") != riderUA:
			bad("Cannot initialize from invalid value")
			return
		case r.URL.Path == "/v1/forecast" && end.After(today.AddDate(0, 0, 15)):
			bad("Parameter 'start_date' is out of allowed range from " + today.Format(time.DateOnly))
			return
		case r.URL.Path == "/v1/archive" && end.After(today.AddDate(0, 0, -5)):
			bad("Parameter 'end_date' is out of allowed range")
			return
		case r.URL.Path != "/v1/forecast" && r.URL.Path != "/v1/archive":
			w.WriteHeader(http.StatusNotFound)
			return
		}
		var docs []map[string]any
		for i := range lats {
			daily := map[string][]any{}
			var days []string
			for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
				days = append(days, d.Format(time.DateOnly))
				v := map[string]float64{"temperature_2m_max": 2.5, "temperature_2m_min": -4.1, "precipitation_sum": 1.2,
					"precipitation_probability_max": 35, "wind_speed_10m_max": 28, "wind_direction_10m_dominant": 5, "relative_humidity_2m_mean": 86}
				if d.Day()%2 == 1 {
					v["precipitation_sum"], v["precipitation_probability_max"] = 14.2, 90
				}
				if r.URL.Path == "/v1/archive" {
					v = map[string]float64{"temperature_2m_max": 0.5 + float64(d.Year()-2020)*0.2, "temperature_2m_min": -6, "precipitation_sum": float64(d.Day() % 3),
						"wind_speed_10m_max": 18, "wind_direction_10m_dominant": 250, "relative_humidity_2m_mean": 88}
				}
				for _, k := range strings.Split(q.Get("daily"), ",") {
					daily[k] = append(daily[k], v[k])
				}
			}
			lat, _ := strconv.ParseFloat(lats[i], 64)
			lon, _ := strconv.ParseFloat(lons[i], 64)
			doc := map[string]any{"latitude": lat, "longitude": lon, "generationtime_ms": 0.3, "utc_offset_seconds": 3600, "timezone": "Europe/Oslo",
				"timezone_abbreviation": "GMT+1", "elevation": 180.0, "daily_units": map[string]string{"time": "iso8601", "temperature_2m_max": "°C"},
				"daily": map[string]any{"time": days}}
			for k, v := range daily {
				doc["daily"].(map[string]any)[k] = v
			}
			docs = append(docs, doc)
		}
		w.Header().Set("Content-Type", "application/json")
		if len(docs) == 1 {
			_ = json.NewEncoder(w).Encode(docs[0])
			return
		}
		_ = json.NewEncoder(w).Encode(docs)
	}))
	t.Cleanup(srv.Close)
	return srv
}
