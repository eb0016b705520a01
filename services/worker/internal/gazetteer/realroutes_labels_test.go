package gazetteer_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/testkit/fixtures"
)

// realRoutesDir holds the pacing engine's real routes in the test kit's
// fixtures (their provenance and licences are in testkit/fixtures/SOURCES.md);
// the labels are checked on the days the engine cuts from them, as a new
// trip's rider would read them.
const realRoutesDir = "gpx/"

// TestRealRouteDayLabels plans each real route at a new trip's settings
// (the intermediate preset) and names the days' ends with the gazetteer and
// the label rule the worker applies (geocode.StageLabels), printing the plan
// as the CLI shows it: no end is unnamed or "?", and two consecutive ends
// kilometres apart never carry the same bare name.
func TestRealRouteDayLabels(t *testing.T) {
	t.Parallel()
	g := load(t)
	for _, file := range []string{
		"ors_via-aurelia_roma-ventimiglia.gpx.gz",
		"ors_giro-passi-svizzeri.gpx.gz",
		"long_brouter_oslo-trondheim_fastbike.gpx",
		"brouter_car-test-route_oslo-rondane.gpx.gz",
		"brouter_rondanestien_trekking.gpx.gz",
	} {
		t.Run(file+": every day's ends are named, consecutive ends apart never by the same bare name", func(t *testing.T) {
			t.Parallel()
			pts := readRoute(t, realRoutesDir+file)
			res, err := pacing.Plan(pts, pacing.Defaults())
			require.NoError(t, err)

			ends := make([]geocode.StageEnds, len(res.Stages))
			for i, st := range res.Stages {
				ends[i] = geocode.StageEnds{Index: st.Index,
					Start: geocode.Point{Lat: st.Start.Lat, Lon: st.Start.Lon}, End: geocode.Point{Lat: st.End.Lat, Lon: st.End.Lon}}
			}
			labels := geocode.StageLabels(ends, func(p geocode.Point) geocode.Place {
				place, err := g.Reverse(context.Background(), p.Lat, p.Lon)
				if errors.Is(err, geocode.ErrNoPlace) {
					return geocode.Place{}
				}
				require.NoError(t, err)
				return place
			})
			require.Len(t, labels, len(res.Stages))

			var b strings.Builder
			fmt.Fprintf(&b, "%s: %.1f km, ↑ %.0f m, %d days at the intermediate preset\n", file, res.DistanceM/1000, res.AscentM, res.Days)
			fmt.Fprintf(&b, "  %2s %7s %6s %6s  %s\n", "#", "KM", "UP M", "HOURS", "FROM → TO")
			for i, st := range res.Stages {
				l := labels[i]
				for _, name := range []string{l.Start, l.End} {
					require.NotEmpty(t, name, "day %d", i+1)
					require.NotContains(t, name, "?", "day %d", i+1)
				}
				if i > 0 {
					apart := route.Vincenty(res.Stages[i-1].End, st.End)
					if apart > geocode.DistinctEndsM {
						require.NotEqual(t, labels[i-1].End, l.End, "days %d and %d end %.0f km apart", i, i+1, apart/1000)
					}
					require.Equal(t, labels[i-1].End, l.Start, "day %d starts where day %d ended", i+1, i)
				}
				fmt.Fprintf(&b, "  %2d %7.1f %6.0f %6.1f  %s → %s\n", i+1, st.DistanceM/1000, st.AscentM, st.RidingS/3600, l.Start, l.End)
			}
			t.Log("\n" + b.String())
		})
	}
}

// readRoute reads a fixture's GPX route, gunzipping a .gz one.
func readRoute(t *testing.T, name string) []route.Point {
	t.Helper()
	var r io.Reader = bytes.NewReader(fixtures.Read(t, name))
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(r)
		require.NoError(t, err)
		defer gz.Close()
		r = gz
	}
	rt, err := route.ReadGPX(r, route.WithMaxBytes(64<<20))
	require.NoError(t, err)
	return rt.Points
}
