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

	t.Run("every point is placed on the measured length's scale, the kept vertices where the line puts them", func(t *testing.T) {
		t.Parallel()
		var pts []Point
		for i := range 2001 {
			off := float64(i%2) * 5 / 111195 // the same wobble, 4 km long
			pts = append(pts, Point{Lat: 45 + float64(i)*2/111195, Lon: 6 + off})
		}
		d := MeasuredDistances(pts)
		require.Len(t, d, len(pts))
		require.Equal(t, MeasuredLength(pts), d[len(d)-1])
		require.Less(t, d[len(d)-1], Length(pts)-1000, "the raw points are over a km longer")
		for i := 1; i < len(d); i++ {
			require.GreaterOrEqual(t, d[i], d[i-1])
		}
		// The middle point, on the line's scale, is half the line, not
		// the raw distance to it.
		require.InDelta(t, d[len(d)-1]/2, d[1000], 5)
		require.Greater(t, Length(pts[:1001])-d[1000], 500.0)
	})

	t.Run("two points or fewer are measured as they are", func(t *testing.T) {
		t.Parallel()
		a, b := Point{Lat: 45, Lon: 6}, Point{Lat: 45.01, Lon: 6}
		require.Equal(t, []float64{0, Vincenty(a, b)}, MeasuredDistances([]Point{a, b}))
		require.Equal(t, []float64{0}, MeasuredDistances([]Point{a}))
		require.Empty(t, MeasuredDistances(nil))
	})
}
