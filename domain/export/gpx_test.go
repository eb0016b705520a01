package export_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/route"
)

// parsedGPX is what the tests read back from an export with encoding/xml;
// the namespace in XMLName makes the parse fail if the writer drops it.
type parsedGPX struct {
	XMLName  xml.Name `xml:"http://www.topografix.com/GPX/1/1 gpx"`
	Version  string   `xml:"version,attr"`
	Creator  string   `xml:"creator,attr"`
	Metadata struct {
		Name   string `xml:"name"`
		Author *struct {
			Name string `xml:"name"`
		} `xml:"author"`
		Link *struct {
			Href string `xml:"href,attr"`
		} `xml:"link"`
		Time *string `xml:"time"`
	} `xml:"metadata"`
	Wpts []gpxWpt `xml:"wpt"`
	Trks []struct {
		Name   string `xml:"name"`
		Desc   string `xml:"desc"`
		Number int    `xml:"number"`
		Segs   []struct {
			Pts []fixturePoint `xml:"trkpt"`
		} `xml:"trkseg"`
	} `xml:"trk"`
}

// gpxWpt is one <wpt> read back.
type gpxWpt struct {
	Lat  float64 `xml:"lat,attr"`
	Lon  float64 `xml:"lon,attr"`
	Name string  `xml:"name"`
	Desc string  `xml:"desc"`
	Sym  string  `xml:"sym"`
	Type string  `xml:"type"`
}

func parseGPX(t *testing.T, data []byte) parsedGPX {
	t.Helper()
	var g parsedGPX
	require.NoError(t, xml.Unmarshal(data, &g), "output:\n%s", data)
	return g
}

// requireSamePoints compares written points with the input within the
// precision the writer promises: 7 decimals for coordinates, 2 for ele.
func requireSamePoints(t *testing.T, want []route.Point, got []fixturePoint) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.InDelta(t, want[i].Lat, got[i].Lat, 5.1e-8, "point %d lat", i)
		require.InDelta(t, want[i].Lon, got[i].Lon, 5.1e-8, "point %d lon", i)
		if want[i].HasEle {
			require.NotNil(t, got[i].Ele, "point %d ele", i)
			require.InDelta(t, want[i].Ele, *got[i].Ele, 0.0051, "point %d ele", i)
		} else {
			require.Nil(t, got[i].Ele, "point %d ele", i)
		}
	}
}

func TestWriteTripGPX(t *testing.T) {
	t.Parallel()

	t.Run("the trip is one track per riding day, each day's points in order, days meeting at their cut points", func(t *testing.T) {
		t.Parallel()
		trip, pts := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripGPX(&buf, trip, export.GPXOptions{}))

		g := parseGPX(t, buf.Bytes())
		require.Equal(t, "1.1", g.Version)
		require.Equal(t, "Roadbook", g.Creator)
		require.Equal(t, "Drei Gipfel Lauf", g.Metadata.Name)
		require.NotNil(t, g.Metadata.Link)
		require.Equal(t, "https://www.komoot.com/tour/123456", g.Metadata.Link.Href)
		require.Len(t, g.Trks, 3)
		for i, trk := range g.Trks {
			require.Equal(t, i+1, trk.Number)
			require.Len(t, trk.Segs, 1)
			requireSamePoints(t, trip.Stages[i].Points, trk.Segs[0].Pts)
		}
		require.Equal(t, []string{"Day 1 · Start → Hütte", "Day 2", "Day 3 · Abstieg"},
			[]string{g.Trks[0].Name, g.Trks[1].Name, g.Trks[2].Name})
		// Joined at their shared cut points, the days are the route.
		var joined []fixturePoint
		for i, trk := range g.Trks {
			seg := trk.Segs[0].Pts
			if i > 0 {
				require.Equal(t, joined[len(joined)-1], seg[0], "day %d starts where day %d ends", i+1, i)
				seg = seg[1:]
			}
			joined = append(joined, seg...)
		}
		requireSamePoints(t, pts, joined)
	})

	t.Run("a dated trip names each day with its date and skips rest days, keeping day numbers", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		d := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		stages := []export.Stage{trip.Stages[0], {RestDay: true}, trip.Stages[1], trip.Stages[2]}
		for i := range stages {
			stages[i].Date = d.AddDate(0, 0, i)
		}
		stages[3].Label, stages[3].EndLabel = "Lillehammer → Otta", "Otta"
		trip.Stages = stages
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripGPX(&buf, trip, export.GPXOptions{}))
		g := parseGPX(t, buf.Bytes())
		require.Len(t, g.Trks, 3, "a rest day has no track")
		require.Equal(t, "Day 1 · Start → Hütte · 2026-06-01", g.Trks[0].Name)
		require.Equal(t, "Day 3 · 2026-06-03", g.Trks[1].Name)
		require.Equal(t, "Day 4 · Lillehammer → Otta · 2026-06-04", g.Trks[2].Name)
		require.Equal(t, []int{1, 3, 4}, []int{g.Trks[0].Number, g.Trks[1].Number, g.Trks[2].Number})
		var ends []string
		for _, w := range g.Wpts {
			if w.Type == "day_end" {
				ends = append(ends, w.Name)
			}
		}
		require.Equal(t, []string{"Day 1 end: Hütte", "Day 3 end", "Day 4 end: Otta"}, ends)
	})

	t.Run("a rest day's waypoints come with the day before it, where the rider spends it, in the GPX and the FIT", func(t *testing.T) {
		t.Parallel()
		trip, pts := threeStageTrip(t)
		a := len(pts) / 3
		shop := export.Waypoint{Name: "Bike shop", Category: "repair", Lat: pts[a-2].Lat, Lon: pts[a-2].Lon + 0.0003}
		trip.Stages = []export.Stage{trip.Stages[0], {RestDay: true, Waypoints: []export.Waypoint{shop}}, trip.Stages[1], trip.Stages[2]}
		for _, write := range []func(*bytes.Buffer) error{
			func(b *bytes.Buffer) error { return export.WriteTripGPX(b, trip, export.GPXOptions{}) },
			func(b *bytes.Buffer) error { return export.WriteStageGPX(b, trip, 0, export.GPXOptions{}) },
		} {
			var buf bytes.Buffer
			require.NoError(t, write(&buf))
			var names []string
			for _, w := range parseGPX(t, buf.Bytes()).Wpts {
				if w.Name == "Bike shop" {
					require.Equal(t, "Day 2 (rest day): your waypoint", w.Desc)
					require.Equal(t, "waypoint:repair", w.Type)
				}
				if w.Type != "day_summit" {
					names = append(names, w.Name)
				}
			}
			require.Equal(t, []string{"Brunnen", "Bäckerei", "Bike shop", "Gasthof Post", "Day 1 end: Hütte"}, names[:5], "in day 1's file, in route order, before its end")
		}
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripFIT(&buf, trip, export.FITOptions{}))
		_, c := decodeFIT(t, buf.Bytes())
		found := false
		for _, p := range c.CoursePoints {
			found = found || p.Name == "Bike shop"
		}
		require.True(t, found, "the FIT course has the rest day's waypoint as a course point")
	})

	t.Run("each day's waypoints come in route order: the rider's, resupply, POIs, the night, then the day's end", func(t *testing.T) {
		t.Parallel()
		trip, pts := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripGPX(&buf, trip, export.GPXOptions{}))

		type wpt struct{ name, sym, typ string }
		var got []wpt
		g := parseGPX(t, buf.Bytes())
		g.Wpts = slices.DeleteFunc(g.Wpts, func(w gpxWpt) bool { return w.Type == "day_summit" }) // see TestDaySummit
		for _, w := range g.Wpts {
			got = append(got, wpt{w.Name, w.Sym, w.Type})
		}
		// Day 1 has a chosen hotel: the camp site candidate is left out.
		require.Equal(t, []wpt{
			{"Brunnen", "Drinking Water", "water"},
			{"Bäckerei", "Restaurant", "food"},
			{"Gasthof Post", "Lodging", "guest_house"},
			{"Day 1 end: Hütte", "Flag, Red", "day_end"},
			{"Quelle", "Drinking Water", "waypoint:water"},
			{"Drinking water", "Drinking Water", "water"},
			{"Gipfelkreuz", "Summit", "summit"},
			{"Spar", "Shopping Center", "shop"},
			{"Apotheke", "First Aid", "first_aid"},
			{"Day 2 end", "Flag, Red", "day_end"},
			{"Aussicht", "Flag, Blue", "generic"},
			{"Day 3 end", "Flag, Red", "day_end"},
		}, got)
		end := g.Wpts[3]
		a := len(pts) / 3
		require.InDelta(t, pts[a].Lat, end.Lat, 5.1e-8)
		require.InDelta(t, pts[a].Lon, end.Lon, 5.1e-8)
		require.Equal(t, "Day 2, km 4.1 · Mo-Sa 07:00-19:00 · closed when you pass · you pass about 19:40", g.Wpts[7].Desc)
		require.Contains(t, g.Wpts[2].Desc, "chosen")
	})

	t.Run("a night's price reads as a rider says it: a range, one price, or free", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		trip.Stages[0].Accommodation = nil
		trip.Stages[0].Candidates[0].PriceMinEUR, trip.Stages[0].Candidates[0].PriceMaxEUR = 55, 55
		trip.Stages[0].Candidates[1].PriceMinEUR, trip.Stages[0].Candidates[1].PriceMaxEUR = 0, 0 // fee=no
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageGPX(&buf, trip, 0, export.GPXOptions{}))
		descs := map[string]string{}
		for _, w := range parseGPX(t, buf.Bytes()).Wpts {
			descs[w.Name] = w.Desc
		}
		require.Equal(t, "Day 1: where to sleep (55 €)", descs["Gasthof Post"])
		require.Equal(t, "Day 1: where to sleep (free)", descs["Camping am See"])
		trip, _ = threeStageTrip(t)
		buf.Reset()
		require.NoError(t, export.WriteStageGPX(&buf, trip, 0, export.GPXOptions{}))
		require.Contains(t, buf.String(), "<desc>Day 1: the night&#39;s chosen accommodation (40–80 €)</desc>")
	})

	t.Run("while no accommodation is chosen the candidates are offered", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		trip.Stages[0].Accommodation = nil
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageGPX(&buf, trip, 0, export.GPXOptions{}))
		var names []string
		for _, w := range parseGPX(t, buf.Bytes()).Wpts {
			if w.Type != "day_summit" {
				names = append(names, w.Name)
			}
		}
		require.Equal(t, []string{"Brunnen", "Bäckerei", "Gasthof Post", "Camping am See", "Day 1 end: Hütte"}, names)
	})

	t.Run("the file validates against the GPX 1.1 schema", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		trip.Stages[0].Date = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		for name, write := range map[string]func(*bytes.Buffer) error{
			"trip": func(b *bytes.Buffer) error {
				return export.WriteTripGPX(b, trip, export.GPXOptions{Author: "Ada", Time: time.Unix(0, 0)})
			},
			"day 2": func(b *bytes.Buffer) error { return export.WriteStageGPX(b, trip, 1, export.GPXOptions{}) },
		} {
			var buf bytes.Buffer
			require.NoError(t, write(&buf), name)
			requireValidGPX(t, buf.Bytes())
		}
	})

	t.Run("by default nothing personal is written: no time, no author", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripGPX(&buf, trip, export.GPXOptions{}))
		g := parseGPX(t, buf.Bytes())
		require.Nil(t, g.Metadata.Time)
		require.Nil(t, g.Metadata.Author)
		require.NotContains(t, buf.String(), "<time>")
		require.NotContains(t, buf.String(), "<author>")
	})

	t.Run("time and author are written only when asked for", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		var buf bytes.Buffer
		when := time.Date(2025, 6, 1, 10, 30, 0, 0, time.FixedZone("CEST", 2*3600))
		require.NoError(t, export.WriteTripGPX(&buf, trip, export.GPXOptions{Time: when, Author: "Ada"}))
		g := parseGPX(t, buf.Bytes())
		require.NotNil(t, g.Metadata.Time)
		require.Equal(t, "2025-06-01T08:30:00Z", *g.Metadata.Time)
		require.NotNil(t, g.Metadata.Author)
		require.Equal(t, "Ada", g.Metadata.Author.Name)
	})

	t.Run("hostile third-party names are escaped and read back verbatim", func(t *testing.T) {
		t.Parallel()
		hostile := `</name><script>alert("x")</script> & 'co' <![CDATA[`
		trip := export.Trip{
			Title:     hostile,
			SourceURL: `https://example.com/?a=1&b="2"><x>`,
			Stages: []export.Stage{{
				Label:  hostile,
				Points: []route.Point{{Lat: 45, Lon: 6}, {Lat: 45.001, Lon: 6.001}},
				POIs:   []export.POI{{Name: hostile, Kind: export.POIFood, Lat: 45, Lon: 6}},
			}},
		}
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageGPX(&buf, trip, 0, export.GPXOptions{Author: hostile}))
		require.NotContains(t, buf.String(), "<script>")
		require.NotContains(t, buf.String(), "<x>")

		g := parseGPX(t, buf.Bytes())
		require.Equal(t, hostile, g.Metadata.Name)
		require.Equal(t, hostile, g.Metadata.Author.Name)
		require.Equal(t, `https://example.com/?a=1&b="2"><x>`, g.Metadata.Link.Href)
		require.Equal(t, hostile, g.Wpts[0].Name)
		require.Equal(t, "Day 1 · "+hostile, g.Trks[0].Name)
		requireValidGPX(t, buf.Bytes())
	})

	t.Run("control characters and invalid UTF-8 in names cannot break the XML", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{
			Title:  "bad\x00name\x1b\xff",
			Stages: []export.Stage{{Points: []route.Point{{Lat: 1, Lon: 2}}}},
		}
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripGPX(&buf, trip, export.GPXOptions{}))
		require.Equal(t, "bad name \uFFFD", parseGPX(t, buf.Bytes()).Metadata.Name)
	})

	t.Run("small floats are written as decimals, never in scientific notation", func(t *testing.T) {
		t.Parallel()
		pts := loadFixture(t, "gpxpy_track-with-small-floats.gpx")
		pts = append(pts,
			route.Point{Lat: 1e-7, Lon: -1e-7, Ele: 1e-7, HasEle: true},
			route.Point{Lat: -3e-8, Lon: 2.5e-6},
		)
		trip := export.Trip{Stages: []export.Stage{{Points: pts}}}
		var buf bytes.Buffer
		require.NoError(t, export.WriteTripGPX(&buf, trip, export.GPXOptions{}))

		require.Contains(t, buf.String(), `<trkpt lat="0.0000001" lon="-0.0000001"><ele>0</ele></trkpt>`)
		require.Contains(t, buf.String(), `<trkpt lat="0" lon="0.0000025"/>`)
		require.Contains(t, buf.String(), `<trkpt lat="0.0000917" lon="0.0075898"><ele>10</ele></trkpt>`)
		// Every number in the file: digits, an optional sign and point only.
		numbers := regexp.MustCompile(`(?:lat|lon)="([^"]*)"|<ele>([^<]*)</ele>`).FindAllStringSubmatch(buf.String(), -1)
		require.Len(t, numbers, 2*len(pts)+4+2) // 3 fixture elevations, the 1e-7 one, the day-end waypoint
		decimal := regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
		for _, m := range numbers {
			v := m[1] + m[2]
			require.Regexp(t, decimal, v)
		}
		requireSamePoints(t, pts, parseGPX(t, buf.Bytes()).Trks[0].Segs[0].Pts)
	})
}

func TestWriteStageGPX(t *testing.T) {
	t.Parallel()

	t.Run("a stage is its own track named as its day, with its waypoints", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageGPX(&buf, trip, 2, export.GPXOptions{}))
		g := parseGPX(t, buf.Bytes())
		require.Equal(t, "Drei Gipfel Lauf", g.Metadata.Name)
		require.Len(t, g.Trks, 1)
		require.Equal(t, "Day 3 · Abstieg", g.Trks[0].Name)
		require.Equal(t, 3, g.Trks[0].Number)
		requireSamePoints(t, trip.Stages[2].Points, g.Trks[0].Segs[0].Pts)
		g.Wpts = slices.DeleteFunc(g.Wpts, func(w gpxWpt) bool { return w.Type == "day_summit" })
		require.Len(t, g.Wpts, 2)
		require.Equal(t, "Aussicht", g.Wpts[0].Name)
		require.Equal(t, "Day 3 end", g.Wpts[1].Name)
	})

	t.Run("a stage without a label is named Day N", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageGPX(&buf, trip, 1, export.GPXOptions{}))
		g := parseGPX(t, buf.Bytes())
		require.Equal(t, "Day 2", g.Trks[0].Name)
		requireSamePoints(t, trip.Stages[1].Points, g.Trks[0].Segs[0].Pts)
	})

	t.Run("a position outside the stages is refused", func(t *testing.T) {
		t.Parallel()
		trip, _ := threeStageTrip(t)
		for _, i := range []int{-1, 3} {
			err := export.WriteStageGPX(&bytes.Buffer{}, trip, i, export.GPXOptions{})
			require.ErrorIs(t, err, export.ErrNoSuchStage)
		}
	})

	t.Run("a rest day has no points to export", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{Stages: []export.Stage{{RestDay: true}}}
		require.ErrorIs(t, export.WriteStageGPX(&bytes.Buffer{}, trip, 0, export.GPXOptions{}), export.ErrNoPoints)
		require.ErrorIs(t, export.WriteTripGPX(&bytes.Buffer{}, trip, export.GPXOptions{}), export.ErrNoPoints)
	})
}

func TestGPXRefusesBadInput(t *testing.T) {
	t.Parallel()
	nan := func() float64 { var z float64; return z / z }()
	cases := []struct {
		name  string
		edit  func(*export.Trip)
		field string
	}{
		{"a latitude above 90 names its stage and point", func(tr *export.Trip) { tr.Stages[1].Points[3].Lat = 91 }, "stages[1].points[3].lat"},
		{"a longitude beyond 180 names its stage and point", func(tr *export.Trip) { tr.Stages[0].Points[0].Lon = 181 }, "stages[0].points[0].lon"},
		{"a NaN elevation is refused", func(tr *export.Trip) { tr.Stages[2].Points[1].Ele = nan }, "stages[2].points[1].ele"},
		{"a POI of an unknown kind is refused", func(tr *export.Trip) { tr.Stages[0].POIs[0].Kind = "fod" }, "stages[0].pois[0].kind"},
		{"an accommodation priced max below min is refused", func(tr *export.Trip) { tr.Stages[0].Candidates[1].PriceMaxEUR = 1 }, "stages[0].candidates[1].price_max_eur"},
		{"a negative distance is refused", func(tr *export.Trip) { tr.Stages[1].DistanceM = -1 }, "stages[1].distance_m"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			trip, _ := threeStageTrip(t)
			// Give each stage its own points so an edit touches one stage only.
			for i := range trip.Stages {
				trip.Stages[i].Points = append([]route.Point(nil), trip.Stages[i].Points...)
			}
			tc.edit(&trip)
			err := export.WriteTripGPX(&bytes.Buffer{}, trip, export.GPXOptions{})
			require.ErrorIs(t, err, export.ErrInvalidInput)
			var ie *export.InputError
			require.True(t, errors.As(err, &ie))
			require.Equal(t, tc.field, ie.Field)
		})
	}
}
