package route

import "math"

// Decimate reduces pts to at most maxPoints for drawing or sending a line:
// Douglas–Peucker (Simplify) with a tolerance doubling from
// DecimationToleranceM, then an even stride if the line is still too long.
// maxPoints ≤ 0, or a line short enough already, is returned as is.
func Decimate(pts []Point, maxPoints int) []Point {
	if maxPoints <= 0 || len(pts) <= maxPoints {
		return pts
	}
	out := pts
	for tol := DecimationToleranceM; tol < 1e6 && len(out) > maxPoints; tol *= 2 {
		out = Simplify(pts, tol)
	}
	if len(out) <= maxPoints {
		return out
	}
	if maxPoints == 1 {
		return out[:1]
	}
	step := float64(len(out)-1) / float64(maxPoints-1)
	thin := make([]Point, 0, maxPoints)
	for i := range maxPoints {
		thin = append(thin, out[int(math.Round(float64(i)*step))])
	}
	return thin
}
