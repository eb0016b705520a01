package route

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTotals(t *testing.T) {
	t.Parallel()

	t.Run("adds each day's distance, climbing and descent", func(t *testing.T) {
		t.Parallel()
		var tot Totals
		tot.Add(80000, 1200, 900)
		tot.Add(65000.5, 300, 640)
		require.Equal(t, Totals{DistanceM: 145000.5, AscentM: 1500, DescentM: 1540}, tot)
	})

	t.Run("a route's measured length is its decimated line's, shorter than the raw points'", func(t *testing.T) {
		t.Parallel()
		var pts []Point
		for i := range 2000 {
			// A wobbly line: every other point 5 m off, which the 20 m
			// decimation drops.
			off := float64(i%2) * 5 / 111195
			pts = append(pts, Point{Lat: 45 + float64(i)*20/111195, Lon: 6 + off})
		}
		require.InDelta(t, Length(Simplify(pts, DecimationToleranceM)), MeasuredLength(pts), 1e-9)
		require.Less(t, MeasuredLength(pts), Length(pts))
	})
}
