package route

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVincenty(t *testing.T) {
	t.Parallel()

	t.Run("matches the published Flinders Peak to Buninyong geodesic", func(t *testing.T) {
		t.Parallel()
		// Vincenty (1975) worked example, as published by Geoscience Australia: 54 972.271 m.
		d := Vincenty(Point{Lat: -37.95103342, Lon: 144.42486789}, Point{Lat: -37.65282114, Lon: 143.92649554})
		require.InDelta(t, 54972.271, d, 0.001)
	})

	t.Run("is zero between a point and itself", func(t *testing.T) {
		t.Parallel()
		require.Zero(t, Vincenty(Point{Lat: 59.9, Lon: 10.7}, Point{Lat: 59.9, Lon: 10.7}))
	})

	t.Run("falls back to the sphere for antipodal points instead of failing", func(t *testing.T) {
		t.Parallel()
		d := Vincenty(Point{Lat: 0, Lon: 0}, Point{Lat: 0.5, Lon: 179.7})
		require.False(t, math.IsNaN(d))
		require.InDelta(t, Haversine(Point{Lat: 0, Lon: 0}, Point{Lat: 0.5, Lon: 179.7}), d, 40000)
	})
}

func TestHaversine(t *testing.T) {
	t.Parallel()

	t.Run("one degree of latitude is R times pi over 180", func(t *testing.T) {
		t.Parallel()
		require.InDelta(t, EarthRadiusM*math.Pi/180, Haversine(Point{Lat: 10, Lon: 5}, Point{Lat: 11, Lon: 5}), 1e-6)
	})
}

func TestSimplify(t *testing.T) {
	t.Parallel()

	t.Run("drops points closer than the tolerance to the chord and keeps the ends", func(t *testing.T) {
		t.Parallel()
		// 0.0001° of latitude is about 11 m: under the 20 m tolerance.
		pts := []Point{{Lat: 0, Lon: 0}, {Lat: 0.0001, Lon: 0.01}, {Lat: 0, Lon: 0.02}}
		require.Equal(t, []Point{pts[0], pts[2]}, Simplify(pts, DecimationToleranceM))
	})

	t.Run("keeps a point farther than the tolerance, with its elevation", func(t *testing.T) {
		t.Parallel()
		// 0.001° of latitude is about 111 m.
		pts := []Point{{Lat: 0, Lon: 0}, {Lat: 0.001, Lon: 0.01, Ele: 812, HasEle: true}, {Lat: 0, Lon: 0.02}}
		require.Equal(t, pts, Simplify(pts, DecimationToleranceM))
	})

	t.Run("measures from the start when the chord is shorter than a millimetre", func(t *testing.T) {
		t.Parallel()
		pts := []Point{{Lat: 1, Lon: 1}, {Lat: 1.001, Lon: 1}, {Lat: 1, Lon: 1}}
		require.Len(t, Simplify(pts, DecimationToleranceM), 3)
	})

	t.Run("does not modify its input", func(t *testing.T) {
		t.Parallel()
		pts := []Point{{Lat: 0, Lon: 0}, {Lat: 0.00001, Lon: 0.01}, {Lat: 0, Lon: 0.02}}
		before := append([]Point(nil), pts...)
		Simplify(pts, DecimationToleranceM)
		require.Equal(t, before, pts)
	})
}

func TestElevation(t *testing.T) {
	t.Parallel()

	ele := func(vs ...float64) []Point {
		pts := make([]Point, len(vs))
		for i, v := range vs {
			pts[i] = Point{Ele: v, HasEle: true}
		}
		return pts
	}

	t.Run("counts rising runs above three metres only", func(t *testing.T) {
		t.Parallel()
		gain, loss := Elevation(ele(100, 101, 102, 103, 103, 104, 110))
		// Run 100→103 rises exactly 3.0 m: not > 3.0, ignored. Run 103→110 rises 7 m.
		require.Equal(t, 7.0, gain)
		require.Equal(t, 0.0, loss)
	})

	t.Run("ends a run at any non-rising step", func(t *testing.T) {
		t.Parallel()
		gain, loss := Elevation(ele(0, 2, 4, 3, 5, 7))
		// Runs: 0→4 (+4 counts), 3→7 (+4 counts); the 1 m drop is below the threshold.
		require.Equal(t, 8.0, gain)
		require.Equal(t, 0.0, loss)
	})

	t.Run("mirrors the rule for descents", func(t *testing.T) {
		t.Parallel()
		gain, loss := Elevation(ele(50, 40, 39, 45, 44, 41))
		require.Equal(t, 6.0, gain)
		require.Equal(t, 15.0, loss) // runs 50→39 (11 m) and 45→41 (4 m) both count
	})
}
