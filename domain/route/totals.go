package route

// Totals are a trip's distance, climbing and descent as every view states
// them — the digest, the CLI, the text roadbook, the GPX/FIT exports and the
// share page: the sums of its riding days' measures (each the Vincenty
// length of the day's 20 m decimated line, whose sum is the route's length
// on the same line, MeasuredLength). Summing them in one place is what
// makes "4,306.4 km" read the same everywhere (docs/design/PACING.md "One
// set of totals").
type Totals struct {
	DistanceM, AscentM, DescentM float64
}

// Add counts one riding day.
func (t *Totals) Add(distanceM, ascentM, descentM float64) {
	t.DistanceM += distanceM
	t.AscentM += ascentM
	t.DescentM += descentM
}

// MeasuredLength is a route's length as its days measure it: the Vincenty
// length of its Douglas–Peucker (DecimationToleranceM) line, which the
// pacing engine cuts and the stages' lengths add up to. Imports record it,
// so a trip's length before and after pacing is one number.
func MeasuredLength(pts []Point) float64 {
	return Length(Simplify(pts, DecimationToleranceM))
}

// MeasuredDistances places every point of a route on MeasuredLength's scale:
// out[i] is the distance from pts[0] to pts[i] along the Douglas–Peucker
// (DecimationToleranceM) line, a point between two kept vertices placed by
// its share of the raw (Vincenty) distance between them. It is how a
// position along the route is read where the days' own distances are meant
// (a stage's RouteStartM, a split "at 45 km"): the raw points are longer
// than the line by their wiggles — 1.1 % on an alpine route (503.5 km of
// points, 497.8 km of line) — so raw distances put a day's start kilometres
// away from where the days say it is. out[len−1] == MeasuredLength(pts).
func MeasuredDistances(pts []Point) []float64 {
	out := make([]float64, len(pts))
	if len(pts) < 2 {
		return out
	}
	raw := make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		raw[i] = raw[i-1] + Vincenty(pts[i-1], pts[i])
	}
	if len(pts) < 3 {
		copy(out, raw)
		return out
	}
	keep := simplifyKeep(pts, DecimationToleranceM)
	a := 0 // the last kept vertex
	for b := 1; b < len(pts); b++ {
		if !keep[b] {
			continue
		}
		line, span := Vincenty(pts[a], pts[b]), raw[b]-raw[a]
		for i := a + 1; i <= b; i++ {
			f := 1.0
			if span > 0 {
				f = (raw[i] - raw[a]) / span
			}
			out[i] = out[a] + f*line
		}
		a = b
	}
	return out
}
