package route

// Line is a route's raw points with each point's distance from the start on
// the scale the days are measured on (MeasuredDistances), measured once.
// Cutting a day at a distance walks the whole route (a cut's position is
// metres from the route's start), and measuring a 40,000-point route —
// Vincenty per segment and a Douglas–Peucker pass — costs more than the
// rest of the edit together. A route never changes under its content hash,
// so whoever reads it from the blob store can measure it once and keep the
// Line (tripstore.Store.RouteLine does).
type Line struct {
	Points []Point
	// CumM[i] is MeasuredDistances(Points)[i]: len(CumM) == len(Points).
	CumM []float64
}

// Measure measures pts once into a Line.
func Measure(pts []Point) Line {
	return Line{Points: pts, CumM: MeasuredDistances(pts)}
}

// Measured reports whether CumM belongs to Points (same length); a Line
// built with points alone is measured by whoever walks it.
func (l Line) Measured() bool { return len(l.CumM) == len(l.Points) }
