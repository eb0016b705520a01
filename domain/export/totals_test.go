package export_test

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
)

// TestOneSetOfTotals exports a real route as the engine cuts it (the Via
// Aurelia of the pacing tests, 691 km in 9 days at a new trip's settings) and
// reads each file back as its user would: the text roadbook's "Total", the
// length of the GPX tracks and the FIT course's distance (its last record, and
// its laps, one a day, added up) all state the trip's
// distance — the sum of its days (route.Totals) — to 0.1 km
// (docs/design/PACING.md "One set of totals").
func TestOneSetOfTotals(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../route/testdata/gpx/ors_via-aurelia_roma-ventimiglia.gpx.gz")
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	rt, err := route.ReadGPX(gz, route.WithMaxBytes(64<<20))
	require.NoError(t, err)
	res, err := pacing.Plan(rt.Points, pacing.Defaults())
	require.NoError(t, err)

	trip := export.Trip{Title: "Via Aurelia"}
	var total route.Totals
	for _, st := range res.Stages {
		trip.Stages = append(trip.Stages, export.Stage{RestDay: st.RestDay, DistanceM: st.DistanceM,
			AscentM: st.AscentM, DescentM: st.DescentM, Points: st.Geometry})
		if !st.RestDay {
			total.Add(st.DistanceM, st.AscentM, st.DescentM)
		}
	}
	require.Greater(t, len(trip.Stages), 5)
	require.InDelta(t, res.DistanceM, total.DistanceM, 1, "the days add up to the route")
	km := fmt.Sprintf("%.1f km", total.DistanceM/1000)

	t.Run("the text roadbook's total is the days' sum", func(t *testing.T) {
		t.Parallel()
		var b bytes.Buffer
		require.NoError(t, export.WriteText(&b, trip))
		m := regexp.MustCompile(`(?m)^Total: ([0-9.]+ km)`).FindStringSubmatch(b.String())
		require.NotNil(t, m, b.String())
		require.Equal(t, km, m[1])
	})

	t.Run("the GPX track is as long as the trip says", func(t *testing.T) {
		t.Parallel()
		var b bytes.Buffer
		require.NoError(t, export.WriteTripGPX(&b, trip, export.GPXOptions{}))
		var doc struct {
			Pts []fixturePoint `xml:"trk>trkseg>trkpt"`
		}
		require.NoError(t, xml.Unmarshal(b.Bytes(), &doc))
		pts := make([]route.Point, len(doc.Pts))
		for i, p := range doc.Pts {
			pts[i] = route.Point{Lat: p.Lat, Lon: p.Lon}
		}
		require.Equal(t, km, fmt.Sprintf("%.1f km", route.Length(pts)/1000))
	})

	t.Run("the FIT course's distance is the trip's", func(t *testing.T) {
		t.Parallel()
		var b bytes.Buffer
		require.NoError(t, export.WriteTripFIT(&b, trip, export.FITOptions{}))
		mesgs, c := decodeFIT(t, b.Bytes())
		laps := laps(mesgs)
		require.Len(t, laps, len(trip.Stages), "a lap per day")
		sum := 0.0
		for _, l := range laps {
			sum += l.TotalDistanceScaled()
		}
		require.Equal(t, km, fmt.Sprintf("%.1f km", sum/1000), "the days' laps add up to the trip")
		require.Equal(t, km, fmt.Sprintf("%.1f km", c.Records[len(c.Records)-1].DistanceScaled()/1000))
	})
}
