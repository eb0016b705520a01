package pacing

import "github.com/roadbook/roadbook/domain/route"

// FromTours makes one stage per tour of a Komoot collection, in order, with
// no pacing (DOMAIN §3): the rider planned each day as a tour. Each stage is
// measured like a paced one — geometry = Douglas–Peucker(20 m) of the tour,
// distance = the Vincenty sum of that geometry, D+/D− from the tour's raw
// points. RawFrom/RawTo index the tours' points concatenated in order, the
// way the trip stores the collection's route. A tour of fewer than 2 points
// has nothing to ride and makes no stage (its points still count in the
// indexes). Stages are numbered from 0 and carry no date or weight; a caller
// with fewer than 2 stages has a MIN_STAGES trip.
func FromTours(tours [][]route.Point) []Stage {
	var stages []Stage
	offset := 0
	for _, tour := range tours {
		if len(tour) >= 2 {
			geom := route.Simplify(tour, route.DecimationToleranceM)
			gain, loss := route.Elevation(tour)
			stages = append(stages, Stage{
				Index:     len(stages),
				Start:     geom[0],
				End:       geom[len(geom)-1],
				DistanceM: route.Length(geom),
				AscentM:   gain,
				DescentM:  loss,
				Geometry:  geom,
				RawFrom:   offset,
				RawTo:     offset + len(tour) - 1,
			})
		}
		offset += len(tour)
	}
	return stages
}
