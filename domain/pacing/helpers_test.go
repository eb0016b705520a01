package pacing

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

// osloFixture is the 627 km BRouter route Oslo → Trondheim, from the domain's
// one copy of the real routes (../route/testdata/SOURCES.md): the domain
// sits below testkit, so it keeps that copy rather than importing the kit.
const osloFixture = "../route/testdata/gpx/long_brouter_oslo-trondheim_fastbike.gpx"

// loadOslo reads the Oslo–Trondheim fixture with the project's GPX reader.
func loadOslo(t testing.TB) []route.Point {
	t.Helper()
	f, err := os.Open(osloFixture)
	require.NoError(t, err)
	defer f.Close()
	r, err := route.ReadGPX(f)
	require.NoError(t, err)
	require.Len(t, r.Points, 17895, "the fixture's trkpt count (../route/testdata/SOURCES.md)")
	return r.Points
}

// randomRoute is a deterministic random walk of n points about stepM metres
// apart, heading drifting, with hills: elevation is a sum of long waves
// (climbs of hundreds of metres) plus metre-scale noise. seed picks the
// route; the same seed always gives the same points.
func randomRoute(seed uint64, n int, stepM float64, hilly bool) []route.Point {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	lat, lon := 44+rng.Float64()*4, 2+rng.Float64()*6
	heading := rng.Float64() * 2 * math.Pi
	// Hill waves: wavelength 5–60 km, amplitude 20–400 m.
	type wave struct{ lenM, ampM, phase float64 }
	waves := make([]wave, 4)
	for i := range waves {
		waves[i] = wave{5000 + rng.Float64()*55000, 20 + rng.Float64()*380, rng.Float64() * 2 * math.Pi}
	}
	pts := make([]route.Point, n)
	dist := 0.0
	for i := range pts {
		ele := 0.0
		if hilly {
			ele = 500
			for _, w := range waves {
				ele += w.ampM * math.Sin(2*math.Pi*dist/w.lenM+w.phase)
			}
			ele += rng.NormFloat64() * 0.7
		}
		pts[i] = route.Point{Lat: lat, Lon: lon, Ele: ele, HasEle: hilly}
		heading += rng.NormFloat64() * 0.25
		d := stepM * (0.5 + rng.Float64())
		lat += d * math.Cos(heading) / 111320
		lon += d * math.Sin(heading) / (111320 * math.Cos(lat*math.Pi/180))
		dist += d
	}
	return pts
}

// expectedWeights recomputes, from DOMAIN §3's words, each stage's fatigue
// weight: fatigueFactor^k with k the riding days since the start or the last
// rest day; 0 for a rest day.
func expectedWeights(stages []Stage, ff float64) []float64 {
	out := make([]float64, len(stages))
	k := 0
	for i, st := range stages {
		if st.RestDay {
			k = 0
			continue
		}
		out[i] = math.Pow(ff, float64(k))
		k++
	}
	return out
}

// dayEffortKm recomputes a riding day's effort from the raw points and its
// geometry, without the engine's profile: Vincenty km of the geometry plus
// D+ of its raw span over the penalty.
func dayEffortKm(pts []route.Point, st Stage, penalty float64) float64 {
	gain, _ := route.Elevation(pts[st.RawFrom : st.RawTo+1])
	return route.Length(st.Geometry)/1000 + gain/penalty
}

// endSegmentsEffortKm is the effort of the first and last geometry segments
// of a day (where its cuts lie) plus two broken climbing runs, in km: the
// tolerance between a day's recomputed effort and its target ("± one
// segment's effort" at each end).
func endSegmentsEffortKm(st Stage, penalty float64) float64 {
	g := st.Geometry
	seg := func(a, b route.Point) float64 {
		return route.Vincenty(a, b)/1000 + (math.Abs(b.Ele-a.Ele)+2*route.MinClimbRunM)/penalty
	}
	n := len(g)
	return seg(g[0], g[1]) + seg(g[n-2], g[n-1])
}

// riding returns the riding stages.
func riding(stages []Stage) []Stage {
	var out []Stage
	for _, st := range stages {
		if !st.RestDay {
			out = append(out, st)
		}
	}
	return out
}

// date is a calendar date at UTC midnight.
func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
