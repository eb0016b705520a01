package alert

import (
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// CountrySampleM is how often a stage is sampled for the country it is in
// (the border and holiday rules): a border is found to within this, then
// narrowed by bisection to crossingPrecisionM.
const CountrySampleM = 1000.0

const crossingPrecisionM = 25.0

// countryRun is a stretch of a stage in one country ("" for none: the sea).
type countryRun struct {
	country string
	// fromM is where the stretch starts along the stage; at the point.
	fromM float64
	at    route.Point
}

// countriesAlong cuts a stage into its stretches per country, in route
// order, by sampling it every CountrySampleM (the stage's Points, or its
// Start and End when it has none) and bisecting each change of country.
func countriesAlong(s Stage, zones ZoneFinder) ([]countryRun, error) {
	pts := s.Points
	if len(pts) < 2 {
		pts = []route.Point{s.Start, s.End}
	}
	country := func(p route.Point) (string, error) { return CountryAt(zones, p.Lat, p.Lon) }
	var runs []countryRun
	prev, prevAt := pts[0], 0.0
	c0, err := country(prev)
	if err != nil {
		return nil, err
	}
	runs = append(runs, countryRun{country: c0, at: prev})
	walked := 0.0
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		seg := route.Haversine(a, b)
		n := max(1, int(math.Ceil(seg/CountrySampleM)))
		for k := 1; k <= n; k++ {
			f := float64(k) / float64(n)
			p := lerp(a, b, f)
			at := walked + f*seg
			c, err := country(p)
			if err != nil {
				return nil, err
			}
			if last := runs[len(runs)-1].country; c != last {
				// Bisect between the previous sample and this one.
				lo, hi, loAt, hiAt := prev, p, prevAt, at
				for hiAt-loAt > crossingPrecisionM {
					mid := lerp(lo, hi, 0.5)
					cm, err := country(mid)
					if err != nil {
						return nil, err
					}
					if cm == last {
						lo, loAt = mid, (loAt+hiAt)/2
					} else {
						hi, hiAt = mid, (loAt+hiAt)/2
					}
				}
				runs = append(runs, countryRun{country: c, fromM: hiAt, at: hi})
			}
			prev, prevAt = p, at
		}
		walked += seg
	}
	return runs, nil
}

// lerp is the point a fraction f of the way from a to b (straight in
// degrees: the samples are at most a kilometre apart).
func lerp(a, b route.Point, f float64) route.Point {
	return route.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon)}
}
