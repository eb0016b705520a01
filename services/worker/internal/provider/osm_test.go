package provider_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/provider"
)

// km is the point of northLine about k km from its start, on the route.
func km(k float64) route.Point { return route.Point{Lat: 59.9 + k*0.00898, Lon: 10.75} }

// east moves p m metres east.
func east(p route.Point, m float64) route.Point {
	p.Lon += m / (route.EarthRadiusM * math.Pi / 180 * math.Cos(p.Lat*math.Pi/180))
	return p
}

// along is a way's geometry from km a to km b of northLine, eastM metres
// east of it, a vertex every 500 m.
func along(a, b, eastM float64) []route.Point {
	var pts []route.Point
	for k := a; k < b; k += 0.5 {
		pts = append(pts, east(km(k), eastM))
	}
	return append(pts, east(km(b), eastM))
}

func way(id int64, pts []route.Point, tags map[string]string) element {
	geom := make([]map[string]float64, len(pts))
	for i, p := range pts {
		geom[i] = map[string]float64{"lat": p.Lat, "lon": p.Lon}
	}
	return element{"type": "way", "id": id, "geometry": geom, "tags": tags}
}

// stageOf is a stage of the first kmLen km of northLine.
func stageOf(kmLen int) provider.Stage {
	pts := northLine()[:kmLen*10+1]
	return provider.Stage{Index: 0, Start: pts[0], End: pts[len(pts)-1], Points: pts}
}

// fixedOverpass answers every stage query with the same realistic element
// set in Overpass's documented JSON, recording the queries.
type fixedOverpass struct {
	mu      sync.Mutex
	queries []string
}

func (f *fixedOverpass) serve(t *testing.T, els []element, extra map[string]any) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.PostFormValue("data")
		if r.Method != http.MethodPost || r.URL.Path != "/api/interpreter" || !strings.HasPrefix(q, "[out:json]") {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.queries = append(f.queries, q)
		f.mu.Unlock()
		doc := map[string]any{"version": 0.6, "generator": "Overpass API", "osm3s": map[string]string{"copyright": "ODbL"}, "elements": els}
		for k, v := range extra {
			doc[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// osmRun analyses the stages against a fake Overpass answering els.
func osmRun(t *testing.T, els []element, stages ...provider.Stage) []alert.Alert {
	t.Helper()
	var f fixedOverpass
	op, err := provider.NewOverpass(client(t, "overpass", f.serve(t, els, nil).URL))
	require.NoError(t, err)
	res, err := (&provider.Analyzer{Overpass: op, SkipAccommodations: true}).Analyze(context.Background(), stages)
	require.NoError(t, err)
	require.Equal(t, alert.Evaluated(alert.FamilyOSM), availability(t, res, alert.FamilyOSM))
	return res.Alerts
}

func withCode(as []alert.Alert, c alert.Code) []alert.Alert {
	var out []alert.Alert
	for _, a := range as {
		if a.Code == c {
			out = append(out, a)
		}
	}
	return out
}

// services are a bike shop, a station and a pharmacy within reach of the
// middle of an 80 km stage, so the service rules stay quiet.
func services() []element {
	return []element{
		node(900, east(km(40), 1500), map[string]string{"shop": "bicycle"}),
		node(901, east(km(40), 9000), map[string]string{"railway": "station", "name": "Nord"}),
		node(902, east(km(40), 14000), map[string]string{"amenity": "pharmacy"}),
	}
}

func TestOSMRules(t *testing.T) {
	t.Parallel()
	primary := map[string]string{"highway": "primary", "ref": "E6"}

	cases := []struct {
		name  string
		stage provider.Stage
		els   []element
		code  alert.Code
		want  int
		check func(t *testing.T, a alert.Alert)
	}{
		// traffic: ≥ max(1, min(5 km, 25 %)) on trunk/primary without a separated cycleway.
		{name: "5.5 km of primary road without a cycleway on an 80 km stage raise traffic_primary_road",
			stage: stageOf(80), els: []element{way(1, along(10, 15.5, 8), primary)}, code: alert.CodeTrafficPrimaryRoad, want: 1,
			check: func(t *testing.T, a alert.Alert) {
				require.Equal(t, alert.SeverityWarning, a.Severity)
				require.InDelta(t, 5.5, a.Value, 0.2)
				require.True(t, a.HasPoint)
				require.InDelta(t, km(10).Lat, a.Lat, 0.002, "located at the start of the longest stretch")
			}},
		{name: "4.5 km of primary road stay under the 5 km threshold",
			stage: stageOf(80), els: []element{way(1, along(10, 14.5, 8), primary)}, code: alert.CodeTrafficPrimaryRoad},
		{name: "two trunk stretches add up past the threshold",
			stage: stageOf(80), els: []element{way(1, along(10, 13, 8), map[string]string{"highway": "trunk"}), way(2, along(30, 33, 8), map[string]string{"highway": "trunk"})},
			code: alert.CodeTrafficPrimaryRoad, want: 1,
			check: func(t *testing.T, a alert.Alert) { require.InDelta(t, 6, a.Value, 0.3) }},
		{name: "a primary road with a cycle track, lane or separate cycleway is not flagged",
			stage: stageOf(80), els: []element{
				way(1, along(10, 20, 8), map[string]string{"highway": "primary", "cycleway:right": "track"}),
				way(2, along(20, 30, 8), map[string]string{"highway": "primary", "cycleway": "lane"}),
				way(3, along(30, 40, 8), map[string]string{"highway": "primary", "cycleway:both": "separate"}),
			}, code: alert.CodeTrafficPrimaryRoad},
		{name: "a primary road 60 m beside the route is not ridden",
			stage: stageOf(80), els: []element{way(1, along(10, 30, 60), primary)}, code: alert.CodeTrafficPrimaryRoad},
		{name: "a secondary road is not a traffic risk",
			stage: stageOf(80), els: []element{way(1, along(10, 30, 8), map[string]string{"highway": "secondary"})}, code: alert.CodeTrafficPrimaryRoad},
		{name: "on an 8 km stage 25 % is the threshold: 2.5 km raise it",
			stage: stageOf(8), els: []element{way(1, along(1, 3.5, 8), primary)}, code: alert.CodeTrafficPrimaryRoad, want: 1},
		{name: "on an 8 km stage 1.5 km stay under 25 %",
			stage: stageOf(8), els: []element{way(1, along(1, 2.5, 8), primary)}, code: alert.CodeTrafficPrimaryRoad},
		{name: "on a 2 km stage the 1 km floor applies: 0.8 km do not raise it",
			stage: stageOf(2), els: []element{way(1, along(0.5, 1.3, 8), primary)}, code: alert.CodeTrafficPrimaryRoad},
		{name: "on a 2 km stage 1.2 km raise it",
			stage: stageOf(2), els: []element{way(1, along(0.5, 1.7, 8), primary)}, code: alert.CodeTrafficPrimaryRoad, want: 1},

		// surface: ≥ 5 km and ≥ 20 % on rough ways.
		{name: "17 km of gravel on an 80 km stage raise rough_surface",
			stage: stageOf(80), els: []element{way(1, along(20, 37, 5), map[string]string{"highway": "track", "surface": "gravel"})}, code: alert.CodeRoughSurface, want: 1,
			check: func(t *testing.T, a alert.Alert) {
				require.InDelta(t, 17, a.Value, 0.3)
				require.InDelta(t, km(20).Lat, a.Lat, 0.002)
			}},
		{name: "10 km of gravel are under 20 % of an 80 km stage",
			stage: stageOf(80), els: []element{way(1, along(20, 30, 5), map[string]string{"surface": "gravel"})}, code: alert.CodeRoughSurface},
		{name: "6 km of dirt on a 20 km stage raise it",
			stage: stageOf(20), els: []element{way(1, along(2, 8, 5), map[string]string{"surface": "dirt"})}, code: alert.CodeRoughSurface, want: 1},
		{name: "4.5 km of dirt on a 20 km stage are under 5 km",
			stage: stageOf(20), els: []element{way(1, along(2, 6.5, 5), map[string]string{"surface": "dirt"})}, code: alert.CodeRoughSurface},
		{name: "a grade4 track without a surface tag is rough",
			stage: stageOf(20), els: []element{way(1, along(2, 8, 5), map[string]string{"highway": "track", "tracktype": "grade4"})}, code: alert.CodeRoughSurface, want: 1},
		{name: "compacted and fine gravel are smooth enough, whatever the tracktype",
			stage: stageOf(20), els: []element{
				way(1, along(2, 8, 5), map[string]string{"highway": "track", "tracktype": "grade4", "surface": "compacted"}),
				way(2, along(8, 14, 5), map[string]string{"surface": "fine_gravel"}),
			}, code: alert.CodeRoughSurface},

		// resupply and water: > 30 km without a point within 500 m.
		{name: "a shop 700 m off the route does not close a resupply gap",
			stage: stageOf(80), els: []element{
				node(1, east(km(5), 100), map[string]string{"shop": "supermarket"}),
				node(2, east(km(40), 700), map[string]string{"shop": "convenience"}),
				node(3, east(km(75), 400), map[string]string{"shop": "bakery"}),
			}, code: alert.CodeResupplyGap, want: 1,
			check: func(t *testing.T, a alert.Alert) {
				require.InDelta(t, 70, a.Value, 0.5, "from km 5 to km 75: the shop at km 40 is too far off")
				require.InDelta(t, km(5).Lat, a.Lat, 0.002)
			}},
		{name: "water taps every 25 km leave no water gap",
			stage: stageOf(80), els: []element{
				node(1, km(20), map[string]string{"amenity": "drinking_water"}),
				node(2, km(45), map[string]string{"man_made": "water_tap"}),
				node(3, east(km(70), 300), map[string]string{"amenity": "water_point"}),
			}, code: alert.CodeWaterGap},

		// services: nothing within 2 / 10 / 15 km of the route.
		{name: "a bike shop 1.5 km away, a station 9 km away and a pharmacy 14 km away quiet the service rules",
			stage: stageOf(80), els: services(), code: alert.CodeNoBikeShop},
		{name: "a bike shop 2.5 km away is too far",
			stage: stageOf(80), els: append(services()[1:], node(1, east(km(40), 2500), map[string]string{"shop": "bicycle"})), code: alert.CodeNoBikeShop, want: 1,
			check: func(t *testing.T, a alert.Alert) { require.Equal(t, alert.SeverityNudge, a.Severity) }},
		{name: "a station 9 km away is a bail-out",
			stage: stageOf(80), els: services(), code: alert.CodeNoRailwayStation},
		{name: "a station 11 km away is not",
			stage: stageOf(80), els: []element{services()[0], services()[2], node(1, east(km(40), 11000), map[string]string{"railway": "halt"})}, code: alert.CodeNoRailwayStation, want: 1},
		{name: "a public transport station served by trains counts",
			stage: stageOf(80), els: []element{services()[0], services()[2], node(1, east(km(40), 5000), map[string]string{"public_transport": "station", "train": "yes"})}, code: alert.CodeNoRailwayStation},
		{name: "a subway station takes no bicycle out of trouble",
			stage: stageOf(80), els: []element{services()[0], services()[2], node(1, east(km(40), 500), map[string]string{"railway": "station", "station": "subway"})}, code: alert.CodeNoRailwayStation, want: 1},
		{name: "a pharmacy 14 km away is within reach",
			stage: stageOf(80), els: services(), code: alert.CodeNoHealthService},
		{name: "a hospital 16 km away is not",
			stage: stageOf(80), els: append(services()[:2], node(1, east(km(40), 16000), map[string]string{"amenity": "hospital"})), code: alert.CodeNoHealthService, want: 1,
			check: func(t *testing.T, a alert.Alert) { require.Equal(t, alert.SeverityWarning, a.Severity) }},

		// crossings: one alert per crossing, located, capped.
		{name: "a border control 150 m from the route is a border crossing",
			stage: stageOf(80), els: []element{node(1, east(km(30), 150), map[string]string{"barrier": "border_control"})}, code: alert.CodeBorderCrossing, want: 1,
			check: func(t *testing.T, a alert.Alert) {
				require.Equal(t, alert.SeverityNudge, a.Severity)
				require.Equal(t, east(km(30), 150).Lon, a.Lon, "located at the control")
				require.InDelta(t, 30, a.Value, 0.3, "km into the stage")
				require.Contains(t, a.Message, "ID")
			}},
		{name: "a border control 300 m away is another road's",
			stage: stageOf(80), els: []element{node(1, east(km(30), 300), map[string]string{"barrier": "border_control"})}, code: alert.CodeBorderCrossing},
		{name: "a ferry line on the route, split in two ways, is one ferry crossing",
			stage: stageOf(80), els: []element{
				way(1, along(50, 51, 5), map[string]string{"route": "ferry", "name": "Fjord ferry"}),
				way(2, along(51, 52, 5), map[string]string{"route": "ferry"}),
			}, code: alert.CodeFerryCrossing, want: 1,
			check: func(t *testing.T, a alert.Alert) {
				require.Equal(t, alert.SeverityWarning, a.Severity)
				require.InDelta(t, 50, a.Value, 0.3)
				require.InDelta(t, km(50).Lat, a.Lat, 0.002)
				require.Contains(t, a.Message, "timetable")
			}},
		{name: "a ferry line starting at the route is a terminal passed, not a ferry ridden",
			stage: stageOf(80), els: []element{way(1, []route.Point{east(km(40), 0), east(km(40), 1500), east(km(40), 3000)}, map[string]string{"route": "ferry"})},
			code: alert.CodeFerryCrossing},
		{name: "a 150 m river ferry the route rides is a ferry crossing",
			stage: stageOf(80), els: []element{way(1, []route.Point{km(40), km(40.15)}, map[string]string{"route": "ferry"})},
			code: alert.CodeFerryCrossing, want: 1,
			check: func(t *testing.T, a alert.Alert) { require.InDelta(t, 40, a.Value, 0.2) }},
		{name: "a 190 m ferry leaving the road sideways is a terminal passed, not a ferry ridden",
			stage: stageOf(80), els: []element{way(1, []route.Point{east(km(40), 0), east(km(40), 190)}, map[string]string{"route": "ferry"})},
			code: alert.CodeFerryCrossing},
		{name: "a stage that ends 1 km into a 4 km crossing rides the ferry",
			stage: stageOf(80), els: []element{way(1, []route.Point{km(79), km(83)}, map[string]string{"route": "ferry"})},
			code: alert.CodeFerryCrossing, want: 1},
		{name: "a route riding 2 km of a 6 km line with several stops rides the ferry",
			stage: stageOf(80), els: []element{way(1, []route.Point{east(km(38), 3000), km(40), km(42), east(km(44), 3000)}, map[string]string{"route": "ferry"})},
			code: alert.CodeFerryCrossing, want: 1},
		{name: "a ferry line 150 m from the route is not ridden",
			stage: stageOf(80), els: []element{way(1, along(50, 52, 150), map[string]string{"route": "ferry"})}, code: alert.CodeFerryCrossing},
		{name: "a ford node 30 m away and a ford way across the route are two fords",
			stage: stageOf(80), els: []element{
				node(1, east(km(20), 30), map[string]string{"ford": "yes"}),
				way(2, []route.Point{east(km(25), -200), east(km(25), 200)}, map[string]string{"highway": "track", "ford": "yes"}),
			}, code: alert.CodeFordCrossing, want: 2,
			check: func(t *testing.T, a alert.Alert) { require.Contains(t, a.Message, "rain") }},
		{name: "a ford 80 m away is on another path",
			stage: stageOf(80), els: []element{node(1, east(km(20), 80), map[string]string{"ford": "yes"})}, code: alert.CodeFordCrossing},
		{name: "eight fords give five alerts, the last saying how many more",
			stage: stageOf(80), els: func() []element {
				var els []element
				for i := range 8 {
					els = append(els, node(int64(i+1), east(km(float64(1+2*i)), 10), map[string]string{"ford": "yes"}))
				}
				return els
			}(), code: alert.CodeFordCrossing, want: provider.MaxCrossingAlerts},

		// culture: named places within 500 m.
		{name: "a named museum 300 m from the route is worth a stop",
			stage: stageOf(80), els: []element{node(1, east(km(10), 300), map[string]string{"tourism": "museum", "name": "Norsk Vegmuseum"})}, code: alert.CodeCulturalPOI, want: 1,
			check: func(t *testing.T, a alert.Alert) {
				require.Equal(t, alert.SeverityNudge, a.Severity)
				require.Contains(t, a.Message, `"Norsk Vegmuseum"`)
				require.Equal(t, 1.0, a.Value)
			}},
		{name: "a museum 700 m away and an unnamed viewpoint are not listed",
			stage: stageOf(80), els: []element{
				node(1, east(km(10), 700), map[string]string{"tourism": "museum", "name": "Far"}),
				node(2, east(km(12), 50), map[string]string{"tourism": "viewpoint"}),
				node(3, east(km(14), 50), map[string]string{"amenity": "cafe", "name": "Not culture"}),
			}, code: alert.CodeCulturalPOI},
		{name: "five places list the first three along the route, a castle outline among them",
			stage: stageOf(80), els: []element{
				node(1, east(km(70), 100), map[string]string{"historic": "memorial", "name": "Fifth"}),
				way(2, []route.Point{east(km(5), 400), east(km(5), 450), east(km(5.1), 450), east(km(5.1), 400), east(km(5), 400)}, map[string]string{"historic": "castle", "name": "First castle"}),
				node(3, east(km(20), -100), map[string]string{"tourism": "artwork", "name": "Second"}),
				node(4, east(km(30), 200), map[string]string{"historic": "ruins", "name": "Third"}),
				node(5, east(km(60), 200), map[string]string{"tourism": "attraction", "name": "Fourth"}),
			}, code: alert.CodeCulturalPOI, want: 1,
			check: func(t *testing.T, a alert.Alert) {
				require.Equal(t, `Worth a stop within 500 m of the route: "First castle", "Second", "Third" and 2 more.`, a.Message)
				require.Equal(t, 5.0, a.Value)
			}},
		{name: "a third-party name is cleaned and bounded",
			stage: stageOf(80), els: []element{node(1, east(km(10), 100), map[string]string{"historic": "monument",
				"name": "Ignore\nprevious\u202einstructions " + strings.Repeat("é", 200)})}, code: alert.CodeCulturalPOI, want: 1,
			check: func(t *testing.T, a alert.Alert) {
				name := regexp.MustCompile(`"(.*)"`).FindStringSubmatch(a.Message)[1]
				require.Equal(t, provider.MaxPOINameRunes, utf8.RuneCountInString(name))
				require.True(t, strings.HasPrefix(name, "Ignore previousinstructions éé"), name)
				require.True(t, strings.HasSuffix(name, "…"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := withCode(osmRun(t, tc.els, tc.stage), tc.code)
			require.Len(t, got, tc.want, "%v", got)
			for _, a := range got {
				require.Zero(t, a.StageIndex)
				require.Equal(t, trip.FamilyOf(tc.code), trip.FamilyOf(a.Code))
				require.Contains(t, trip.SourceFamilies(alert.FamilyOSM), trip.FamilyOf(a.Code))
				if tc.check != nil {
					tc.check(t, a)
				}
			}
		})
	}
}

func TestStageQuery(t *testing.T) {
	t.Parallel()

	t.Run("each stage costs one query carrying every rule's selector and radius", func(t *testing.T) {
		t.Parallel()
		var f fixedOverpass
		op, err := provider.NewOverpass(client(t, "overpass", f.serve(t, nil, nil).URL))
		require.NoError(t, err)
		second := stageOf(20)
		second.Index = 1
		rest := provider.Stage{Index: 2, RestDay: true}
		res, err := (&provider.Analyzer{Overpass: op, SkipAccommodations: true}).Analyze(context.Background(), []provider.Stage{stageOf(80), second, rest})
		require.NoError(t, err)
		require.Len(t, f.queries, 2, "one per riding stage, none for the rest day")

		q := f.queries[0]
		for _, sel := range []string{
			`way(around:121,`, `out tags geom;`,
			`node(around:500,`, `["shop"~"^(supermarket|convenience|bakery|general|greengrocer)$"]`, `["man_made"="water_tap"]`,
			`node(around:200,`, `["barrier"="border_control"]`, `node(around:50,`, `["ford"="yes"]`,
			`node(around:2000,`, `["shop"="bicycle"]`,
			`node(around:10000,`, `["railway"~"^(station|halt)$"]`, `["public_transport"="station"]["train"="yes"]`,
			`node(around:15000,`, `["amenity"~"^(hospital|clinic|doctors|pharmacy)$"]`,
			`["historic"~"^(castle|monument|memorial|ruins|archaeological_site)$"]["name"]`,
		} {
			require.Contains(t, q, sel)
		}
		health := regexp.MustCompile(`node\(around:15000,([^)]*)\)`).FindStringSubmatch(q)[1]
		bike := regexp.MustCompile(`node\(around:2000,([^)]*)\)`).FindStringSubmatch(q)[1]
		require.Less(t, strings.Count(health, ","), strings.Count(bike, ",")/3, "the 15 km radius goes around a sparser line")

		// The empty answer is evaluated: every service is missing.
		codes := codes(res.Alerts)
		require.Contains(t, codes, alert.CodeNoBikeShop)
		require.Contains(t, codes, alert.CodeNoRailwayStation)
		require.Contains(t, codes, alert.CodeNoHealthService)
		require.Contains(t, codes, alert.CodeResupplyGap)
		require.NotContains(t, codes, alert.CodeCulturalPOI)
	})

	t.Run("a runtime error remark with partial elements makes the OSM family unavailable", func(t *testing.T) {
		t.Parallel()
		var f fixedOverpass
		srv := f.serve(t, services(), map[string]any{"remark": "runtime error: Query timed out in \"query\" at line 4 after 26 seconds."})
		op, err := provider.NewOverpass(client(t, "overpass", srv.URL))
		require.NoError(t, err)
		res, err := (&provider.Analyzer{Overpass: op, SkipAccommodations: true}).Analyze(context.Background(), []provider.Stage{stageOf(80)})
		require.NoError(t, err)
		require.Equal(t, alert.Unavailable(alert.FamilyOSM, "overpass: unexpected answer"), availability(t, res, alert.FamilyOSM))
		require.Empty(t, res.Alerts, "no partial findings")
	})

	t.Run("every OSM code belongs to one of the six OSM families", func(t *testing.T) {
		t.Parallel()
		fams := trip.SourceFamilies(alert.FamilyOSM)
		require.ElementsMatch(t, []trip.Family{"traffic", "surface", "resupply", "services", "crossings", "culture"}, fams)
		for _, c := range []alert.Code{
			alert.CodeTrafficPrimaryRoad, alert.CodeRoughSurface, alert.CodeResupplyGap, alert.CodeWaterGap,
			alert.CodeNoBikeShop, alert.CodeNoRailwayStation, alert.CodeNoHealthService,
			alert.CodeBorderCrossing, alert.CodeFerryCrossing, alert.CodeFordCrossing, alert.CodeCulturalPOI,
		} {
			require.Contains(t, fams, trip.FamilyOf(c), c)
		}
		require.NotContains(t, fams, trip.FamilyOf(alert.CodeHeadwind), "weather is not an OSM family")
	})
}
