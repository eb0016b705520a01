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
