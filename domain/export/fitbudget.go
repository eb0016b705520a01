package export

import (
	"cmp"
	"math"
	"slices"
)

// FITMaxCoursePoints is the most course points one FIT course carries
// (docs/EXPORTS.md "Course points on a device"). A Garmin Edge keeps about
// 200 per course, counting the turn prompts Garmin Connect or the unit adds,
// and silently drops the rest by its own rules; Roadbook writes at most half
// of that and chooses itself, by priority, what a long trip leaves out
// (fitBudget). The GPX export is not capped: phones and desktop tools keep
// every waypoint.
const FITMaxCoursePoints = 100

// priority orders the marks of a course by what a rider on the road needs
// most when not all of them fit on the device: where each day ends, then the
// rider's own points, the night chosen, water, food shops, cafés, the
// nights still on offer, the day's summit, anything else.
type priority int

const (
	prioDayEnd priority = iota
	prioWaypoint
	prioNight
	prioWater
	prioShop
	prioFood
	prioCandidate
	prioSummit
	prioOther
)

// poiPriority is the priority of a resupply point or POI of kind k.
func poiPriority(k POIKind) priority {
	switch k {
	case POIWater:
		return prioWater
	case POIStore:
		return prioShop
	case POIFood:
		return prioFood
	case POISummit:
		return prioSummit
	}
	return prioOther
}

// fitBudget is the course with at most max marks, for the FIT writer: whole
// priority classes are kept in order while they fit; the first class that
// does not fit is thinned evenly along the whole course (for each of the
// places left, the mark nearest to one of as many evenly spaced distances),
// so what a long trip keeps still covers every day instead of stopping
// halfway; the classes after it are left out. cum is the distance from the
// course's start to each of its points. The days keep their marks in route
// order; the course passed in is not modified.
func fitBudget(c course, cum []float64, max int) course {
	type ref struct {
		day, i int
		atM    float64
		prio   priority
	}
	var all []ref
	for d, day := range c.days {
		for i, m := range day.marks {
			all = append(all, ref{day: d, i: i, atM: cum[m.at], prio: m.prio})
		}
	}
	if len(all) <= max {
		return c
	}
	slices.SortStableFunc(all, func(a, b ref) int {
		return cmp.Or(cmp.Compare(a.prio, b.prio), cmp.Compare(a.atM, b.atM))
	})
	total := cum[len(cum)-1]
	keep := map[[2]int]bool{}
	left := max
	for start := 0; start < len(all) && left > 0; {
		end := start
		for end < len(all) && all[end].prio == all[start].prio {
			end++
		}
		class := all[start:end]
		if len(class) <= left {
			for _, r := range class {
				keep[[2]int{r.day, r.i}] = true
			}
			left -= len(class)
		} else {
			taken := make([]bool, len(class))
			for j := range left {
				target := total * (float64(j) + 0.5) / float64(left)
				best, bestD := -1, math.Inf(1)
				for k, r := range class {
					if d := math.Abs(r.atM - target); !taken[k] && d < bestD {
						best, bestD = k, d
					}
				}
				taken[best] = true
				keep[[2]int{class[best].day, class[best].i}] = true
			}
			left = 0
		}
		start = end
	}
	out := c
	out.days = slices.Clone(c.days)
	for d, day := range c.days {
		var ms []mark
		for i, m := range day.marks {
			if keep[[2]int{d, i}] {
				ms = append(ms, m)
			}
		}
		out.days[d].marks = ms
	}
	return out
}
