package trip

import (
	"compress/gzip"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
)

// giroRoute is the Giro Passi Svizzeri of the domain's test corpus
// (../route/testdata/SOURCES.md): 503.5 km of points, 497.8 km of line.
func giroRoute(t *testing.T) []route.Point {
	t.Helper()
	f, err := os.Open("../route/testdata/gpx/ors_giro-passi-svizzeri.gpx.gz")
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	r, err := route.ReadGPX(gz)
	require.NoError(t, err)
	return r.Points
}

// TestSplitOnPacedDays is a cut by distance on days the pacing engine cut:
// the route is walked on the scale the days are measured on, so the cut
// stage starts where it started, its first part is the distance asked, and
// the remainder ends where the next day ended.
func TestSplitOnPacedDays(t *testing.T) {
	t.Parallel()
	for name, pts := range map[string][]route.Point{"Oslo–Trondheim": osloRoute(t), "the Giro Passi Svizzeri": giroRoute(t)} {
		t.Run("on "+name+", every paced day's span walks to its own ends", func(t *testing.T) {
			t.Parallel()
			stages, _, err := PlanStages(pts, RouteInfo{PointCount: len(pts), ElevationKnown: true}, DefaultSettings())
			require.NoError(t, err)
			rt := newAlong(route.Line{Points: pts})
			for _, st := range stages {
				require.Less(t, route.Haversine(rt.at(st.RouteStartM), st.Start), 25.0, "day %d start", st.Index+1)
				require.Less(t, route.Haversine(rt.at(st.RouteEndM), st.End), 25.0, "day %d end", st.Index+1)
			}
		})
	}

	t.Run("a paced alpine day cut at half its length starts where it started", func(t *testing.T) {
		t.Parallel()
		pts := giroRoute(t)
		stages, _, err := PlanStages(pts, RouteInfo{PointCount: len(pts), ElevationKnown: true}, DefaultSettings())
		require.NoError(t, err)
		require.Greater(t, len(stages), 6)
		s := applied(State{ID: testTripID}, history(t, uploaded(SettingsPatch{}))...)
		s = applied(s, history2(t, s, RecordStagesComputed{For: s.StagesProgress.For, Stages: stages})...)
		before := s.Stages
		const k = 5 // the sixth day, 300 km in
		half := before[k].DistanceM / 2
		evs, err := Decide(s, UpdateStage{Version: s.Version, Index: k, DistanceM: &half, Route: route.Line{Points: pts}}, testNow)
		require.NoError(t, err)
		measured, err := Decide(s, UpdateStage{Version: s.Version, Index: k, DistanceM: &half, Route: route.Measure(pts)}, testNow)
		require.NoError(t, err)
		require.Equal(t, evs, measured, "a route measured by the caller (tripstore's cached route.Line) cuts where the bare points do")
		after := applied(s, evs...)
		require.Less(t, route.Haversine(before[k].Start, after.Stages[k].Start), 25.0)
		require.InDelta(t, half, after.Stages[k].DistanceM, 50)
		require.Less(t, route.Haversine(before[k+1].End, after.Stages[k+1].End), 25.0)
		require.InDelta(t, before[k].DistanceM+before[k+1].DistanceM, after.Stages[k].DistanceM+after.Stages[k+1].DistanceM, 50)
	})
}
