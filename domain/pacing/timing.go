package pacing

import (
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// earthRadiusM is the mean Earth radius of the local planar step lengths
// the model times (IUGG mean radius R1).
const earthRadiusM = 6371008.8

// CumulativeSeconds times a polyline with the model: out[i] is the riding
// time in seconds from pts[0] to pts[i]. Each step is ridden at the speed of
// its grade measured over GradeWindowM around it (elevation interpolated
// along the line), so noise in the elevation data does not read as ramps.
// Step lengths are local planar distances (an equirectangular projection
// per step, within a few millimetres of the geodesic on steps of a few
// hundred metres): timing costs one cosine per point, not a Vincenty
// iteration. Points without elevation take it from their neighbours
// (elevations); a line with none is timed as flat.
func (m Model) CumulativeSeconds(pts []route.Point) []float64 {
	out := make([]float64, len(pts))
	dist, grade := windowGrades(pts)
	for i := 1; i < len(pts); i++ {
		out[i] = out[i-1] + (dist[i]-dist[i-1])/m.Speed(grade[i])
	}
	return out
}

// windowGrades reads a polyline's steps: dist[i] is the local planar
// distance from pts[0] to pts[i], and grade[i] the grade of the step
// pts[i−1] → pts[i] measured over GradeWindowM around its middle (elevation
// interpolated along the line; 0 on a line without elevation). It is the
// one reading of a line's grades: the model's speeds (CumulativeSeconds)
// and the climbing it rides (ClimbedM) both come from it.
func windowGrades(pts []route.Point) (dist, grade []float64) {
	if len(pts) < 2 {
		return make([]float64, len(pts)), make([]float64, len(pts))
	}
	dist = make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		dist[i] = dist[i-1] + planar(pts[i-1], pts[i])
	}
	grade = make([]float64, len(pts))
	ele, hasEle := elevations(pts, dist)
	if !hasEle {
		return dist, grade
	}
	total := dist[len(dist)-1]
	lo, hi := 0, 0 // segment indexes holding the window's ends
	eleAt := func(x float64, k *int) float64 {
		for *k < len(dist)-2 && dist[*k+1] < x {
			*k++
		}
		a, b := dist[*k], dist[*k+1]
		if b <= a {
			return ele[*k+1]
		}
		t := math.Max(0, math.Min(1, (x-a)/(b-a)))
		return ele[*k] + t*(ele[*k+1]-ele[*k])
	}
	for i := 1; i < len(pts); i++ {
		mid := (dist[i-1] + dist[i]) / 2
		a, b := math.Max(0, mid-GradeWindowM/2), math.Min(total, mid+GradeWindowM/2)
		if b-a > 1 {
			grade[i] = (eleAt(b, &hi) - eleAt(a, &lo)) / (b - a)
		}
	}
	return dist, grade
}

// RidingSeconds is the modelled riding time of a polyline in seconds.
func (m Model) RidingSeconds(pts []route.Point) float64 {
	if len(pts) < 2 {
		return 0
	}
	c := m.CumulativeSeconds(pts)
	return c[len(c)-1]
}

// planar is the local equirectangular distance between two points.
func planar(a, b route.Point) float64 {
	const rad = math.Pi / 180
	dLon := b.Lon - a.Lon
	if dLon > 180 {
		dLon -= 360
	} else if dLon < -180 {
		dLon += 360
	}
	x := dLon * rad * math.Cos((a.Lat+b.Lat)/2*rad)
	y := (b.Lat - a.Lat) * rad
	return earthRadiusM * math.Sqrt(x*x+y*y)
}

// StageSeconds is the modelled riding time of a day from what every stage
// carries: its decimated geometry, timed grade by grade, and its D+ counted
// on the raw points. The climbing the raw points have and the geometry no
// longer shows (ascentM − GeometryAscent) is added at HiddenClimbSeconds a
// metre; never less than half the geometry's time. The engine times its
// profile segment by segment with the same rule, so a day's time
// recomputed from its stage is the time the engine gave it.
func (m Model) StageSeconds(geom []route.Point, ascentM float64) float64 {
	t := m.RidingSeconds(geom)
	return math.Max(t/2, t+m.bumpS*(ascentM-GeometryAscent(geom)))
}

// GeometryAscent is the sum of the rises between consecutive points of a
// line that have an elevation (no run threshold): the climbing a decimated
// line still shows.
func GeometryAscent(pts []route.Point) float64 {
	up, prev, seen := 0.0, 0.0, false
	for _, p := range pts {
		if !p.HasEle {
			continue
		}
		if seen && p.Ele > prev {
			up += p.Ele - prev
		}
		prev, seen = p.Ele, true
	}
	return up
}

// elevations are the points' elevations, those missing interpolated along
// the line between the nearest points that have one (held flat before the
// first and after the last), and whether any point has one.
func elevations(pts []route.Point, dist []float64) ([]float64, bool) {
	ele := make([]float64, len(pts))
	last := -1
	for i, p := range pts {
		if !p.HasEle {
			continue
		}
		ele[i] = p.Ele
		switch {
		case last < 0:
			for k := 0; k < i; k++ {
				ele[k] = p.Ele
			}
		case i-last > 1:
			span := dist[i] - dist[last]
			for k := last + 1; k < i; k++ {
				f := 0.0
				if span > 0 {
					f = (dist[k] - dist[last]) / span
				}
				ele[k] = pts[last].Ele + f*(p.Ele-pts[last].Ele)
			}
		}
		last = i
	}
	if last < 0 {
		return ele, false
	}
	for k := last + 1; k < len(pts); k++ {
		ele[k] = pts[last].Ele
	}
	return ele, true
}

// StatsSeconds times a day known only by its length, D+ and D− (a stage
// whose geometry is stored out of band): the length at the flat speed, each
// metre climbed at ReferenceGrade instead of the flat and each metre
// descended at −ReferenceGrade (never below half the flat time). Equal
// climbing and descending cost HiddenClimbSeconds a metre, as in
// StageSeconds.
func (m Model) StatsSeconds(distanceM, ascentM, descentM float64) float64 {
	flat := distanceM / m.Speed(0)
	return math.Max(flat/2, flat+m.upS*ascentM+m.downS*descentM)
}

// ClimbMetresPerHour is the most the rider climbs in an hour: the climbing
// power (with the e-bike motor) spent on lifting rider and bike alone, the
// bound no grade reaches. A day of h riding hours cannot climb more than h
// times this; the elevation_gain alert flags a day that does.
func (m Model) ClimbMetresPerHour() float64 {
	p := m.ClimbPowerW
	if m.ebike {
		p += EbikeAssistW
	}
	return p / (SystemMassKg * Gravity) * 3600
}
