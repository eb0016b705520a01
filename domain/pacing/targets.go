package pacing

import (
	"math"
)

// capMarginM is taken off the km cap while planning, so that a capped day,
// once its interpolated cut point is measured again with Vincenty, is never a
// few millimetres over maxDistancePerDay because of floating point.
const capMarginM = 0.5

// minTargetKm is DOMAIN §3's floor: no target below min(30 km, total/N).
const minTargetKm = 30.0

// solverRounds bounds the bisections: each halves an interval of effort, so 80
// rounds reach the last bit of a float64 for any route on Earth.
const solverRounds = 80

// day is one calendar day of the plan.
type day struct {
	rest   bool
	weight float64 // fatigueFactor^k for a riding day, 0 for a rest day
}

// calendar lays out the days: with both dates, their calendar days with the
// rest days among them; otherwise riding riding days, with the rest days whose
// index falls before the last riding day (a rest day after the last riding
// day has nothing to rest from). k, the riding days since the start or the
// last rest day, resets after each rest day.
func calendar(s Settings, riding int) []day {
	var days []day
	k := 0
	total := math.MaxInt
	if s.hasDates() {
		total = s.calendarDays()
	}
	for d, n := 0, 0; d < total && (s.hasDates() || n < riding); d++ {
		if s.isRest(d) {
			days = append(days, day{rest: true})
			k = 0
			continue
		}
		days = append(days, day{weight: math.Pow(s.FatigueFactor, float64(k))})
		k++
		n++
	}
	return days
}

// ridingWeights are the weights of the riding days of days, in order.
func ridingWeights(days []day) []float64 {
	var w []float64
	for _, d := range days {
		if !d.rest {
			w = append(w, d.weight)
		}
	}
	return w
}

// planner turns weights into effort targets on one route.
//
// The km cap and the effort targets live in different units, and a day's km
// for a given effort depends on where it starts (a mountain day covers fewer
// km). So the water-filling is done on positions along the route, not on
// numbers in isolation: with a level s, riding day i starting at effort
// position e covers
//
//	effort_i(s) = max(floor, min(s·w_i, capEffort(e)))
//
// where capEffort(e) is the effort of the next cap km from e, read off the
// route's effort profile. The final position F(s) is continuous and strictly
// increasing in s, so one bisection finds the level where the days end
// exactly at the route's end. At that level every day either holds its
// weight's share s·w_i, or is capped at the cap km with its excess carried by
// the uncapped days in proportion to their weights — the fixed point of
// "cap, spread the excess by weight, repeat until stable" (water-filling) —
// and the targets sum exactly to the route's effort (the last day takes the
// residue of the bisection, a few nanometres).
type planner struct {
	p      *profile
	capM   float64
	floorE float64
}

// walk runs the days at level s and returns the targets and the end
// position. When over is true it instead gives each day a full cap day plus
// s·w_i (the over-capacity spread).
func (pl planner) walk(w []float64, s float64, over bool, targets []float64) float64 {
	e := 0.0
	for i, wi := range w {
		capE := pl.p.effortAt(pl.p.metresAt(e)+pl.capM) - e
		var t float64
		if over {
			t = capE + s*wi
		} else {
			t = max(pl.floorE, min(s*wi, capE))
		}
		if targets != nil {
			targets[i] = t
		}
		e += t
	}
	return e
}

// fullDaysReach is the effort position reached by n riding days that all
// ride the full cap.
func (pl planner) fullDaysReach(n int) float64 {
	e := 0.0
	for range n {
		e = pl.p.effortAt(pl.p.metresAt(e) + pl.capM)
	}
	return e
}

// feasible says n full-cap riding days cover the route.
func (pl planner) feasible(n int) bool {
	return pl.fullDaysReach(n) >= pl.p.totalEff()
}

// daysNeeded is the smallest number of full-cap riding days that covers the
// route: what an over-capacity plan lacks.
func (pl planner) daysNeeded() int {
	e, n := 0.0, 0
	for e < pl.p.totalEff() {
		e = pl.p.effortAt(pl.p.metresAt(e) + pl.capM)
		n++
	}
	return n
}

// targets solves the level and returns one effort target per weight,
// summing exactly to the route's effort. over selects the over-capacity
// spread (full days plus the excess by weight).
func (pl planner) targets(w []float64, over bool) []float64 {
	total := pl.p.totalEff()
	out := make([]float64, len(w))
	sumW, minW := 0.0, math.Inf(1)
	for _, wi := range w {
		sumW += wi
		minW = min(minW, wi)
	}
	// Bracket: at lo the days fall short (or exactly reach) the end; at hi
	// they reach past it.
	lo, hi := 0.0, (total+pl.capM)/minW
	if over {
		hi = total / sumW
	}
	if pl.walk(w, lo, over, nil) < total {
		for range solverRounds {
			mid := (lo + hi) / 2
			if mid <= lo || mid >= hi {
				break
			}
			if pl.walk(w, mid, over, nil) < total {
				lo = mid
			} else {
				hi = mid
			}
		}
	}
	pl.walk(w, lo, over, out)
	// The last day takes the rest, so the targets add up to the route's
	// effort exactly; at lo the residue is the bisection's last interval.
	sum := 0.0
	for _, t := range out[:len(out)-1] {
		sum += t
	}
	out[len(out)-1] = total - sum
	return out
}
