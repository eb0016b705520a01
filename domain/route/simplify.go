package route

import "math"

// DecimationToleranceM is Douglas–Peucker's tolerance for stage geometry
// (DOMAIN §2): fine enough that cuts land on the road, coarse enough that a
// 4,000 km route paces in milliseconds.
const DecimationToleranceM = 20.0

// Simplify decimates a polyline with Douglas–Peucker: a vertex survives when it
// lies farther than toleranceM from the segment joining the kept vertices
// around it. Distances are measured in metres on a local equirectangular plane
// around each segment, which is exact to well under a metre at the scale of a
// decimation tolerance. When a segment's ends are less than 1 mm apart, the
// distance to its start is used. Elevation rides along on surviving points.
// The first and last points are always kept; the input is not modified.
func Simplify(pts []Point, toleranceM float64) []Point {
	if len(pts) < 3 {
		return append([]Point(nil), pts...)
	}
	out := make([]Point, 0, len(pts)/4+2)
	for i, k := range simplifyKeep(pts, toleranceM) {
		if k {
			out = append(out, pts[i])
		}
	}
	return out
}

// simplifyKeep is Douglas–Peucker's verdict on each point of pts (at least
// 3): keep[i] says whether Simplify keeps pts[i].
func simplifyKeep(pts []Point, toleranceM float64) []bool {
	keep := make([]bool, len(pts))
	keep[0], keep[len(pts)-1] = true, true
	// An explicit stack: recursion depth would follow the point count on
	// pathological inputs (a 28,000-point spiral).
	type span struct{ first, last int }
	stack := []span{{0, len(pts) - 1}}
	tolSq := toleranceM * toleranceM
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.last-s.first < 2 {
			continue
		}
		// The plane is fixed per span, so its scale and the chord are computed
		// once, and squared distances spare a square root per point: this loop
		// is most of the cost of pacing a 4,000 km route.
		pl := newPlane(pts[s.first], pts[s.last])
		maxD, maxI := -1.0, -1
		for i := s.first + 1; i < s.last; i++ {
			if d := pl.distanceSq(pts[i]); d > maxD {
				maxD, maxI = d, i
			}
		}
		if maxD > tolSq {
			keep[maxI] = true
			stack = append(stack, span{s.first, maxI}, span{maxI, s.last})
		}
	}
	return keep
}

// plane is a local equirectangular projection around a segment a–b, in metres.
type plane struct {
	a              Point
	kx, ky         float64 // metres per degree of longitude and latitude
	bx, by, segSq  float64 // the chord a→b and its squared length
	degenerateSpan bool    // ends < 0.001 m apart: measure from a
}

func newPlane(a, b Point) plane {
	const degToM = EarthRadiusM * math.Pi / 180
	p := plane{a: a, kx: math.Cos(a.Lat*math.Pi/180) * degToM, ky: degToM}
	p.bx, p.by = (b.Lon-a.Lon)*p.kx, (b.Lat-a.Lat)*p.ky
	p.segSq = p.bx*p.bx + p.by*p.by
	p.degenerateSpan = p.segSq < 1e-6
	return p
}

// distanceSq is the squared distance in m² from q to the segment.
func (p plane) distanceSq(q Point) float64 {
	px, py := (q.Lon-p.a.Lon)*p.kx, (q.Lat-p.a.Lat)*p.ky
	if p.degenerateSpan {
		return px*px + py*py
	}
	t := (px*p.bx + py*p.by) / p.segSq
	// Clamped with comparisons, not math.Max/Min: those handle NaN and
	// signed zeros (t is neither: segSq > 0 and the inputs are finite) and
	// are not inlined, and this line runs for every point of every span of
	// every Douglas–Peucker pass (three quarters of pacing.Plan's CPU).
	if t < 0 {
		t = 0
	} else if t > 1 {
		t = 1
	}
	dx, dy := px-t*p.bx, py-t*p.by
	return dx*dx + dy*dy
}
