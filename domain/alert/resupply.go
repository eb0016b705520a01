package alert

import (
	"cmp"
	"math"
	"slices"
)

// ResupplyKind is what a resupply point offers the rider.
type ResupplyKind string

// The three kinds of resupply point.
const (
	// ResupplyWater: drinking water (a tap, a fountain, a spring).
	ResupplyWater ResupplyKind = "water"
	// ResupplyShop: a shop selling food (supermarket, convenience,
	// bakery, general store, greengrocer).
	ResupplyShop ResupplyKind = "shop"
	// ResupplyFood: somewhere to eat (café, restaurant, fast food).
	ResupplyFood ResupplyKind = "food"
)

// ResupplyKinds lists the kinds in the order a day shows them.
func ResupplyKinds() []ResupplyKind {
	return []ResupplyKind{ResupplyWater, ResupplyShop, ResupplyFood}
}

// How a day's resupply points are kept (what GetStage, get_stage, the share
// page and the exports show): the day is cut into ResupplySegmentM
// stretches and in each stretch the ResupplyPerSegment points of each kind
// nearest to the route are kept, the others counted. A rider needs to know
// where the next water is every few kilometres, not every tap of a town.
const (
	ResupplySegmentM   = 10000.0
	ResupplyPerSegment = 2
)

// OpenState is whether a place is open at a given time.
type OpenState string

// The three answers; Unknown is the empty value.
const (
	OpenUnknown OpenState = ""
	Open        OpenState = "open"
	Closed      OpenState = "closed"
)

// ResupplyPoint is one place along a stage to refill water or buy food, as
// the worker measures it against the stage.
type ResupplyPoint struct {
	Kind ResupplyKind
	// ID is the OSM reference ("node/123"), to drop duplicates.
	ID string
	// Name is the cleaned OSM name; may be empty.
	Name     string
	Lat, Lon float64
	// AtM is how far along the stage the route passes it; OffRouteM how far
	// it lies from the route.
	AtM, OffRouteM float64
	// OpeningHours is OSM's opening_hours value when tagged.
	OpeningHours string
	// Open says whether it is open when the rider passes (OpenAt).
	Open OpenState
}

// ResupplyOmitted counts the points of one kind in one segment that were
// found but not kept.
type ResupplyOmitted struct {
	Segment int
	Kind    ResupplyKind
	Count   int
}

// SelectResupply keeps, in every ResupplySegmentM stretch of a stage and for
// every kind, the ResupplyPerSegment points nearest to the route (ties:
// the earlier along the route, then the ID), and counts the rest per
// stretch and kind. The kept points come back in route order; a point with
// the same ID as an earlier one is dropped. Points with an unknown kind or
// a non-finite position along the route are dropped.
func SelectResupply(points []ResupplyPoint) (kept []ResupplyPoint, omitted []ResupplyOmitted) {
	type key struct {
		seg  int
		kind ResupplyKind
	}
	groups := map[key][]ResupplyPoint{}
	seen := map[string]bool{}
	for _, p := range points {
		if !slices.Contains(ResupplyKinds(), p.Kind) || math.IsNaN(p.AtM) || math.IsInf(p.AtM, 0) || p.AtM < 0 {
			continue
		}
		if p.ID != "" {
			if seen[p.ID] {
				continue
			}
			seen[p.ID] = true
		}
		k := key{int(p.AtM / ResupplySegmentM), p.Kind}
		groups[k] = append(groups[k], p)
	}
	for k, g := range groups {
		slices.SortStableFunc(g, func(a, b ResupplyPoint) int {
			return cmp.Or(cmp.Compare(a.OffRouteM, b.OffRouteM), cmp.Compare(a.AtM, b.AtM), cmp.Compare(a.ID, b.ID))
		})
		n := min(len(g), ResupplyPerSegment)
		kept = append(kept, g[:n]...)
		if len(g) > n {
			omitted = append(omitted, ResupplyOmitted{Segment: k.seg, Kind: k.kind, Count: len(g) - n})
		}
	}
	slices.SortStableFunc(kept, func(a, b ResupplyPoint) int {
		return cmp.Or(cmp.Compare(a.AtM, b.AtM), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	slices.SortFunc(omitted, func(a, b ResupplyOmitted) int {
		return cmp.Or(cmp.Compare(a.Segment, b.Segment), slices.Index(ResupplyKinds(), a.Kind)-slices.Index(ResupplyKinds(), b.Kind))
	})
	return kept, omitted
}
