package export

import (
	"fmt"

	"github.com/roadbook/roadbook/domain/route"
)

// course is what the GPX and FIT writers put on a device: one named line of
// points and the waypoints along it, built either from the whole trip or
// from one stage so both writers agree on what "the trip" means.
type course struct {
	name     string
	points   []route.Point
	pois     []POI
	lodgings []Accommodation
	// ascentM and descentM are the stage totals (D+/D− by the route rules,
	// not recomputed here); eleKnown is false when any stage lacks them.
	ascentM, descentM float64
	eleKnown          bool
}

// tripCourse joins every stage into one line. Consecutive stages share their
// cut point (the end of one is the start of the next), so a stage's first
// point is dropped when it repeats the previous last point: a duplicated
// vertex would add a zero-length step and a duplicate FIT record.
func tripCourse(t Trip) course {
	c := course{name: t.Title, eleKnown: true}
	for _, s := range t.Stages {
		c.ascentM += s.AscentM
		c.descentM += s.DescentM
		c.eleKnown = c.eleKnown && (s.RestDay || !s.ElevationUnknown)
		for j, p := range s.Points {
			if j == 0 && len(c.points) > 0 && samePosition(c.points[len(c.points)-1], p) {
				continue
			}
			c.points = append(c.points, p)
		}
		c.pois = append(c.pois, s.POIs...)
		c.lodgings = appendLodgings(c.lodgings, s)
	}
	return c
}

// stageCourse is the stage at position i (0-based) on its own, named by its
// label or "Stage N".
func stageCourse(t Trip, i int) (course, error) {
	if i < 0 || i >= len(t.Stages) {
		return course{}, fmt.Errorf("%w: position %d, the trip has %d stages", ErrNoSuchStage, i, len(t.Stages))
	}
	s := t.Stages[i]
	return course{
		name:     stageName(s, i),
		points:   s.Points,
		pois:     s.POIs,
		lodgings: appendLodgings(nil, s),
		ascentM:  s.AscentM,
		descentM: s.DescentM,
		eleKnown: !s.ElevationUnknown,
	}, nil
}

// appendLodgings adds a stage's candidate accommodations and its chosen one
// (when it is not already a candidate), so the chosen place is always on the
// map even after the candidate list was refreshed.
func appendLodgings(dst []Accommodation, s Stage) []Accommodation {
	dst = append(dst, s.Candidates...)
	if s.Accommodation == nil {
		return dst
	}
	for _, c := range s.Candidates {
		if c.Name == s.Accommodation.Name && c.Lat == s.Accommodation.Lat && c.Lon == s.Accommodation.Lon {
			return dst
		}
	}
	return append(dst, *s.Accommodation)
}

func samePosition(a, b route.Point) bool { return a.Lat == b.Lat && a.Lon == b.Lon }
