package pacing

import (
	"math"
)

// capMarginM is taken off the km cap (and the battery range) while
// planning, so that a capped day, once its interpolated cut point is
// measured again with Vincenty, is never a few millimetres over
// maxDistancePerDay because of floating point.
const capMarginM = 0.5

// batteryMarginM is taken off the e-bike range while planning: the range is
// checked on the day's counted D+, which a cut inside a climbing run can
// move by a few metres of climbing (a few hundred battery metres).
const batteryMarginM = 500.0

// minTargetFlatKm is the floor of a day: no target below
// min(30 km ridden on the flat, total/N), so a plan never ends with a day of
// a few hundred metres.
const minTargetFlatKm = 30.0

// FatigueFloor is the least share of a fresh day's riding time a fatigued
// day keeps (docs/design/PACING.md "The number of days and the balance"):
// day k of a block may ride max(fatigueFactor^k, FatigueFloor) ×
// dailyRidingHours. Without it a long
// trip without rest days would shrink its days towards zero (0.9^40 is
// 1.5 %); with it the rider settles into a rhythm, and the rest-day alert
// suggests a rest where the floor is reached.
const FatigueFloor = 0.8

// solverRounds bounds the bisections: each halves an interval of effort, so 80
// rounds reach the last bit of a float64 for any route on Earth.
const solverRounds = 80

// FatigueWeight is the share of a fresh day's capacity that riding day k of
// a block (k = 0 after the start or a rest day) may take.
func FatigueWeight(fatigueFactor float64, k int) float64 {
	return math.Max(math.Pow(fatigueFactor, float64(k)), FatigueFloor)
}

// DaysToFloor is the number of riding days in a block after which the
// rider's days have shrunk to FatigueFloor: the first k with
// FatigueWeight(ff, k) at the floor, plus one. 0 means never (no fatigue).
func DaysToFloor(fatigueFactor float64) int {
	if fatigueFactor >= 1 {
		return 0
	}
	k := int(math.Ceil(math.Log(FatigueFloor) / math.Log(fatigueFactor)))
	return k + 1
}

// day is one calendar day of the plan.
type day struct {
	rest   bool
	weight float64 // FatigueWeight for a riding day, 0 for a rest day
}

// calendar lays out the days: with both dates, their calendar days; otherwise
// riding riding days. Rest days are the listed RestDays, plus one after every
// RestDayEvery riding days in a row when more riding follows (so never at
// the end, and never a second one in a row). k, the riding days since the
// start or the last rest day, resets after each rest day.
func calendar(s Settings, riding int) []day {
	var days []day
	k := 0
	total := math.MaxInt
	if s.hasDates() {
		total = s.calendarDays()
	}
	for d, n := 0, 0; d < total && (s.hasDates() || n < riding); d++ {
		rhythm := s.RestDayEvery > 0 && k == s.RestDayEvery
		if s.isRest(d) || (rhythm && len(days) > 0 && !days[len(days)-1].rest) {
			days = append(days, day{rest: true})
			k = 0
			continue
		}
		days = append(days, day{weight: FatigueWeight(s.FatigueFactor, k)})
		k++
		n++
	}
	// A planned rest day after the last riding day has nothing to rest
	// from (with dates it stays: the dates fix the days).
	if !s.hasDates() {
		for len(days) > 0 && days[len(days)-1].rest {
			days = days[:len(days)-1]
		}
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

// planner turns weights into riding-time targets on one route.
//
// The caps (km, and in e-bike mode the battery range) and the time targets
// live in different units, and a day's km for a given time depends on where
// it starts (a mountain day covers fewer km). So the water-filling is done on
// positions along the route, not on numbers in isolation: with a level s,
// riding day i starting at effort position e covers
//
//	effort_i(s) = max(floor, min(s·w_i, capEffort(e)))
//
// where capEffort(e) is the riding time to the nearest cap from e, read off
// the route's profile. The final position F(s) is continuous and strictly
// increasing in s, so one bisection finds the level where the days end
// exactly at the route's end. At that level every day either holds its
// weight's share s·w_i, or is capped with its excess carried by the uncapped
// days in proportion to their weights — the fixed point of "cap, spread the
// excess by weight, repeat until stable" (water-filling) — and the targets
// sum exactly to the route's riding time (the last day takes the residue of
// the bisection, a few nanoseconds).
type planner struct {
	p      *profile
	capM   float64
	batM   float64 // battery range in battery metres; 0 = no battery cap
	floorE float64
	// capacity is a fresh day's riding time (seconds).
	capacity float64
}

// capEffort is the riding time from effort position e to the nearest cap.
func (pl planner) capEffort(e float64) float64 {
	m := pl.p.metresAt(e)
	end := m + pl.capM
	if pl.batM > 0 {
		end = math.Min(end, pl.p.batteryEndM(m, pl.batM))
	}
	return pl.p.effortAt(end) - e
}

// walk runs the days at level s and returns the targets and the end
// position. When over is true it instead gives each day a full cap day plus
// s·w_i (the over-capacity spread when not even capped days fit).
func (pl planner) walk(w []float64, s float64, over bool, targets []float64) float64 {
	e := 0.0
	for i, wi := range w {
		capE := pl.capEffort(e)
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

// reach is the effort position reached by the riding days of weights w that
// each ride their capacity (capacity·w_i) or up to the cap, whichever comes
// first; with capacity +Inf every day rides to the cap.
func (pl planner) reach(w []float64, capacity float64) float64 {
	e := 0.0
	for _, wi := range w {
		e += min(capacity*wi, pl.capEffort(e))
		if e >= pl.p.totalEff() {
			return e
		}
	}
	return e
}

// covers says days of weights w within the rider's capacity and the caps
// cover the route.
func (pl planner) covers(w []float64) bool {
	return pl.reach(w, pl.capacity) >= pl.p.totalEff()*(1-1e-12)
}

// coversCapped says days of weights w, however long, cover the route within
// the caps.
func (pl planner) coversCapped(w []float64) bool {
	return pl.reach(w, math.Inf(1)) >= pl.p.totalEff()*(1-1e-12)
}

// ridingDaysNeeded is the smallest number of riding days, laid out by the
// settings' rhythm (fatigue, rest days), whose capacity and caps cover the
// route; for settings without dates. It starts from the lower bounds (the
// km cap, the total riding time over a fresh day) and walks up; a route of
// any length needs a few walks.
func (pl planner) ridingDaysNeeded(s Settings) int {
	n := max(1, int(math.Ceil(pl.p.totalM()/pl.capM)), int(math.Ceil(pl.p.totalEff()/pl.capacity)))
	for !pl.covers(ridingWeights(calendar(s, n))) {
		n++
	}
	return n
}

// targets solves the level and returns one effort target per weight,
// summing exactly to the route's riding time. over selects the
// over-capacity spread (full cap days plus the excess by weight).
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
	lo, hi := 0.0, (2*total+1)/minW
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
	// riding time exactly; at lo the residue is the bisection's last
	// interval.
	sum := 0.0
	for _, t := range out[:len(out)-1] {
		sum += t
	}
	out[len(out)-1] = total - sum
	return out
}

// extraDays is how many more riding days dated settings need: the dates
// extended one calendar day at a time (the rhythm of fatigue and planned
// rest days continuing) until their riding days cover the route, counted in
// riding days. Called only when the dates do not cover it.
func (pl planner) extraDays(s Settings, riding int) int {
	for x := 1; ; x++ {
		longer := s
		longer.EndDate = s.EndDate.AddDate(0, 0, x)
		if w := ridingWeights(calendar(longer, 0)); pl.covers(w) {
			return len(w) - riding
		}
	}
}
