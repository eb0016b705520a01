package alert

import (
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// north returns p moved m metres due north on the Haversine sphere, so
// route.Haversine(p, north(p, m)) == m.
func north(p route.Point, m float64) route.Point {
	p.Lat += m / (route.EarthRadiusM * math.Pi / 180)
	return p
}

// riding builds a riding stage between two points.
func riding(i int, start, end route.Point, km, ascentM float64) Stage {
	return Stage{Index: i, Start: start, End: end, DistanceM: km * 1000, AscentM: ascentM}
}

// chain builds n contiguous riding stages of km each heading north from p.
func chain(p route.Point, n int, km float64) []Stage {
	out := make([]Stage, n)
	for i := range out {
		end := north(p, km*1000)
		out[i] = riding(i, p, end, km, 0)
		p = end
	}
	return out
}

var lyon = route.Point{Lat: 45.764, Lon: 4.8357}

// codes lists the codes of alerts in order.
func codes(as []Alert) []Code {
	var out []Code
	for _, a := range as {
		out = append(out, a.Code)
	}
	return out
}
