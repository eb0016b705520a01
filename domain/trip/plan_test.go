package trip

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
)

// osloRoute is the 627 km Oslo–Trondheim route of the domain's test corpus.
func osloRoute(t *testing.T) []route.Point {
	t.Helper()
	f, err := os.Open("../route/testdata/gpx/long_brouter_oslo-trondheim_fastbike.gpx")
	require.NoError(t, err)
	defer f.Close()
	r, err := route.ReadGPX(f)
	require.NoError(t, err)
	return r.Points
}

func TestPlanStages(t *testing.T) {
	t.Parallel()
	pts := osloRoute(t)
	info := RouteInfo{PointCount: len(pts), DistanceM: route.Length(pts), ElevationKnown: true}

	t.Run("every setting reaches the pacing engine, the e-bike mode and the dates included", func(t *testing.T) {
		t.Parallel()
		s := DefaultSettings()
		s.EbikeMode, s.StartDate, s.EndDate = true, MustDate("2031-06-02"), MustDate("2031-06-08")
		s.FatigueFactor, s.MaxDistancePerDayKm = 0.8, 120
		p := s.Pacing()
		require.True(t, p.EbikeMode)
		require.Equal(t, "2031-06-02", p.StartDate.Format("2006-01-02"))
		require.Equal(t, "2031-06-08", p.EndDate.Format("2006-01-02"))
		require.Equal(t, 0.8, p.FatigueFactor)
		require.Equal(t, 120.0, p.MaxDistancePerDayKm)
		require.Equal(t, s.ElevationPenaltyM, p.ElevationPenalty)
		require.Equal(t, s.AverageSpeedKmH, p.AverageSpeedKmh)
		require.Equal(t, s.DepartureHour, p.DepartureHour)
	})

	t.Run("paced days follow one another along the route", func(t *testing.T) {
		t.Parallel()
		stages, over, err := PlanStages(pts, info, DefaultSettings())
		require.NoError(t, err)
		require.Zero(t, over)
		require.Greater(t, len(stages), 5)
		at := 0.0
		for i, s := range stages {
			require.Equal(t, i, s.Index)
			require.Equal(t, at, s.RouteStartM)
			at = s.RouteEndM
			if !s.RestDay {
				require.Equal(t, OriginPaced, s.Origin)
			}
		}
		require.InDelta(t, info.DistanceM, at, info.DistanceM*0.01)
	})

	t.Run("dates too close together say how many days are missing", func(t *testing.T) {
		t.Parallel()
		s := DefaultSettings()
		s.StartDate, s.EndDate = MustDate("2031-06-02"), MustDate("2031-06-03")
		_, over, err := PlanStages(pts, info, s)
		require.NoError(t, err)
		require.Positive(t, over)
	})

	t.Run("a collection is one stage per tour", func(t *testing.T) {
		t.Parallel()
		tours := RouteInfo{Tours: []SourceTour{{TourID: "a", StartPoint: 0, EndPoint: 99}, {TourID: "b", StartPoint: 100, EndPoint: 299}}}
		stages, _, err := PlanStages(pts[:300], tours, DefaultSettings())
		require.NoError(t, err)
		require.Len(t, stages, 2)
		require.Equal(t, OriginSourceTour, stages[1].Origin)
	})

	t.Run("a route or tours that cannot be paced are refused for good, naming the cause", func(t *testing.T) {
		t.Parallel()
		_, _, err := PlanStages(nil, info, DefaultSettings())
		require.ErrorIs(t, err, ErrCannotPlan)
		require.ErrorIs(t, err, pacing.ErrEmptyRoute)
		_, _, err = PlanStages(pts[:10], RouteInfo{Tours: []SourceTour{{TourID: "x", StartPoint: 5, EndPoint: 50}}}, DefaultSettings())
		require.ErrorIs(t, err, ErrCannotPlan)
		require.Contains(t, err.Error(), "tour x spans points 5..50 of a 10-point route")
		require.False(t, errors.Is(err, pacing.ErrEmptyRoute))
	})
}

func TestMeasureRoute(t *testing.T) {
	t.Parallel()
	pts := osloRoute(t)
	t.Run("a route with elevations is measured with its climbing and a capped title", func(t *testing.T) {
		t.Parallel()
		long := ""
		for range MaxTitleChars + 10 {
			long += "é"
		}
		info := MeasureRoute(&route.Route{Points: pts, ElevationKnown: true, Title: long})
		require.Equal(t, len(pts), info.PointCount)
		require.InDelta(t, 627000, info.DistanceM, 5000)
		require.Positive(t, info.AscentM)
		require.Equal(t, MaxTitleChars, len([]rune(info.Title)))
	})
	t.Run("a route without elevations records no climbing", func(t *testing.T) {
		t.Parallel()
		info := MeasureRoute(&route.Route{Points: pts[:100], Title: "Oslo"})
		require.False(t, info.ElevationKnown)
		require.Zero(t, info.AscentM)
		require.Equal(t, "Oslo", info.Title)
	})
}
