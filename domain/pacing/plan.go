package pacing

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/roadbook/roadbook/domain/route"
)

// Codes the engine's outcomes are known by outside the package, so the trip,
// the alerts and the API spell them once.
const (
	// CodeOverCapacity is the critical alert raised when the dates leave too
	// few days for the rider's capacity or the caps.
	CodeOverCapacity = "pacing_over_capacity"
	// CodeMinStages marks a plan of fewer than 2 stages: the stages are kept
	// and the trip stays draft.
	CodeMinStages = "MIN_STAGES"
)

// ErrEmptyRoute is returned for a route with fewer than 2 points: there is
// nothing to ride, and the import should have said EMPTY_ROUTE already.
var ErrEmptyRoute = errors.New("route has fewer than 2 points")

// ErrInvalidPoint is wrapped (with the point's index) when a coordinate is
// NaN, infinite or out of range: distances over such a point are meaningless.
var ErrInvalidPoint = errors.New("invalid route point")

// Stage is one day of the plan: a riding day with its slice of the route, or
// a rest day (0 km) at the end point of the day before.
type Stage struct {
	// Index is the 0-based calendar day.
	Index int
	// RestDay marks a 0-km rest day.
	RestDay bool
	// Date is StartDate + Index (UTC midnight), zero when no start date is
	// set.
	Date time.Time
	// Start and End are the first and last points of Geometry (for a rest
	// day, both are where the rider rests). Cut points between two riding
	// days are interpolated inside a segment and shared by both days.
	Start, End route.Point
	// DistanceM is the Vincenty sum of Geometry.
	DistanceM float64
	// AscentM and DescentM are DOMAIN §2's D+ and D− over the raw points
	// RawFrom..RawTo: the full-resolution climbing, not the decimated one.
	AscentM, DescentM float64
	// Geometry is the day's slice of the Douglas–Peucker(20 m) route, cut
	// points included (see buildStage for why the route is decimated once);
	// nil for a rest day.
	Geometry []route.Point
	// RawFrom and RawTo are the inclusive span of the day in the raw points
	// given to Plan (consecutive days share the boundary index: the raw
	// point nearest the interpolated cut).
	RawFrom, RawTo int
	// Weight is the day's fatigue weight FatigueWeight(fatigueFactor, k)
	// (0 for a rest day and for FromTours stages).
	Weight float64
	// TargetS is the riding time in seconds the water-filling gave this
	// day; the cut meets it exactly on the profile.
	TargetS float64
	// RidingS is the day's modelled riding time in seconds: the effort
	// model on its Geometry and D+ (Model.StageSeconds), what the rider
	// time and the alerts read. It equals TargetS up to the grade window
	// and the run rule at the day's two ends (seconds).
	RidingS float64
}

// OverCapacity reports that the dates leave too few riding days for the
// rider's daily capacity or the caps (pacing_over_capacity, critical): the
// plan spreads the excess over all days by weight instead of piling it on
// the last one.
type OverCapacity struct {
	// ExtraDays is how many more riding days would keep every day within
	// the rider's daily riding hours (fatigue included) and the caps.
	ExtraDays int
}

// Result is a paced plan and the flags the trip acts on.
type Result struct {
	// Stages are the days in calendar order, rest days included.
	Stages []Stage
	// Days is the number of stages (calendar days).
	Days int
	// RidingDays is the number of riding stages.
	RidingDays int
	// OverCapacity is set when the dates fix too few days for the cap.
	OverCapacity *OverCapacity
	// MinStages is true when the plan has fewer than 2 stages (MIN_STAGES):
	// the stages are kept, and the trip stays draft.
	MinStages bool
	// DistanceM is the route's length: the Vincenty sum of the decimated
	// route, which the stage distances add up to.
	DistanceM float64
	// AscentM and DescentM are the route's D+ and D− on the raw points.
	AscentM, DescentM float64
	// RidingS is the route's modelled riding time in seconds.
	RidingS float64
	// CapacityS is a fresh day's riding time (dailyRidingHours) in seconds.
	CapacityS float64
}

// Plan paces a route (its raw points, in order) into days with Roadbook's
// engine (docs/design/PACING.md): days balanced on the effort model's riding
// time, fatigue within blocks between rest days, the number of days from
// the route's riding time and the rider's daily capacity (or from the dates),
// water-filling under the km cap (and the e-bike range), interpolated cut
// points. It is pure and deterministic: the same points and settings give
// the same stages.
func Plan(pts []route.Point, s Settings) (Result, error) {
	if err := s.Validate(); err != nil {
		return Result{}, err
	}
	if len(pts) < 2 {
		return Result{}, ErrEmptyRoute
	}
	for i, p := range pts {
		if !(p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180) || math.IsNaN(p.Ele) || math.IsInf(p.Ele, 0) {
			return Result{}, fmt.Errorf("point %d (lat %v, lon %v, ele %v): %w", i, p.Lat, p.Lon, p.Ele, ErrInvalidPoint)
		}
	}
	model := NewModel(s)
	prof := newProfile(pts, model)
	gain, loss := route.Elevation(pts)
	res := Result{DistanceM: prof.totalM(), AscentM: gain, DescentM: loss, RidingS: prof.totalEff(), CapacityS: s.DailyRidingHours * 3600}
	if prof.totalEff() <= 0 {
		// A route that never moves: one stage, nothing to pace.
		st := buildStage(prof, model, cut{pt: prof.dec[0]}, prof.cutAt(prof.totalEff()))
		st.Weight = 1
		return finish(res, []Stage{st}, s), nil
	}

	pl := planner{p: prof, capM: s.MaxDistancePerDayKm*1000 - capMarginM, capacity: res.CapacityS}
	if s.EbikeMode {
		pl.batM = EbikeRangeFlatKm*1000 - batteryMarginM
	}
	var days []day
	if s.hasDates() {
		days = calendar(s, 0)
	} else {
		days = calendar(s, pl.ridingDaysNeeded(s))
	}
	w := ridingWeights(days)
	if !pl.covers(w) {
		// Only with dates: without, the number of days was chosen so that
		// they cover the route.
		res.OverCapacity = &OverCapacity{ExtraDays: pl.extraDays(s, len(w))}
	}
	pl.floorE = min(minTargetFlatKm*1000/model.FlatSpeed(), prof.totalEff()/float64(len(w)))
	targets := pl.targets(w, !pl.coversCapped(w))

	// Cut the riding days, then fold any day of fewer than 2 points into
	// the remainder.
	riding := make([]Stage, 0, len(w))
	from, pos := cut{pt: prof.dec[0]}, 0.0
	for i, t := range targets {
		pos += t
		to := prof.cutAt(pos)
		if i == len(targets)-1 {
			to = prof.cutAt(prof.totalEff())
		}
		st := buildStage(prof, model, from, to)
		st.Weight, st.TargetS = w[i], t
		riding = append(riding, st)
		from = to
	}
	riding = fold(prof, model, riding)

	stages := make([]Stage, 0, len(days))
	r := 0
	for _, d := range days {
		if d.rest {
			if r == 0 {
				continue // the first riding day was folded away
			}
			prev := riding[r-1]
			stages = append(stages, Stage{RestDay: true, Start: prev.End, End: prev.End, RawFrom: prev.RawTo, RawTo: prev.RawTo})
			continue
		}
		if r < len(riding) {
			stages = append(stages, riding[r])
			r++
		}
	}
	return finish(res, stages, s), nil
}

// finish numbers and dates the stages and sets the counts and MIN_STAGES.
func finish(res Result, stages []Stage, s Settings) Result {
	for i := range stages {
		stages[i].Index = i
		if !s.StartDate.IsZero() {
			stages[i].Date = dateOf(s.StartDate).AddDate(0, 0, i)
		}
		if !stages[i].RestDay {
			res.RidingDays++
		}
	}
	res.Stages, res.Days = stages, len(stages)
	res.MinStages = len(stages) < 2
	return res
}
