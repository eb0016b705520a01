package pacing

import (
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// ClimbedM is how much a day climbs in the effort model's terms, given its
// decimated geometry and its D+ counted on the raw points (DOMAIN §2): on
// the line, each climbing step's rise at its grade over GradeWindowM (the
// grade its speed is read at), but never more than the climbing power
// lifts in the time the step takes (a grade steep enough to walk is pushed
// at MinSpeedKmh, which climbs faster than the rider's power would); plus
// the climbing the raw points hide from the line (ascentM − GeometryAscent)
// weighted by what the model charges for it, HiddenClimbSeconds a metre
// against the seconds a metre takes at the climbing power; never more than
// ascentM. A day's riding time (StageSeconds) holds ClimbedM at the rider's
// climbing rate, so no day the engine sized climbs more by this measure
// than its hours allow (ClimbMetresPerHour), whatever noise the elevation
// data adds to the point-by-point D+: on the Giro Passi Svizzeri (SRTM
// under openrouteservice) the raw points count 23,185 m, the line 14,730 m
// (docs/design/PACING.md). A geometry without elevation says nothing about
// noise: ascentM is taken as it is.
func (m Model) ClimbedM(geom []route.Point, ascentM float64) float64 {
	if !anyElevation(geom) {
		return ascentM
	}
	lift := m.ClimbMetresPerHour() / 3600 // metres a second
	line := 0.0
	dist, grade := windowGrades(geom)
	for i := 1; i < len(geom); i++ {
		if g, step := grade[i], dist[i]-dist[i-1]; g > 0 {
			line += math.Min(step*math.Min(g, MaxGrade), step/m.Speed(g)*lift)
		}
	}
	hidden := math.Max(0, ascentM-GeometryAscent(geom))
	return math.Min(ascentM, line+hidden*m.bumpS*lift)
}

// anyElevation reports whether a point of the line has an elevation.
func anyElevation(pts []route.Point) bool {
	for _, p := range pts {
		if p.HasEle {
			return true
		}
	}
	return false
}
