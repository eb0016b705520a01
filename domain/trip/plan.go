package trip

import (
	"errors"
	"fmt"
	"time"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
)

// ErrCannotPlan is matched by every refusal of PlanStages: the route or the
// settings cannot be cut into stages, and no retry can change that (the
// worker records StagesFailed at once). The error also matches the cause
// (pacing.ErrEmptyRoute, pacing.ErrInvalidSettings…).
var ErrCannotPlan = errors.New("the route cannot be cut into stages")

// planError is a PlanStages refusal: its text is the cause's, and it matches
// both the cause and ErrCannotPlan.
type planError struct{ err error }

func (e *planError) Error() string   { return e.err.Error() }
func (e *planError) Unwrap() []error { return []error{e.err, ErrCannotPlan} }

// PlanStages cuts a route into a trip's stages (DOMAIN §1): one stage per
// tour for a Komoot collection (pacing.FromTours), else the pacing engine
// with the trip's settings. overCapacityDays is how many more riding days
// the dates would need at the daily cap (0 when they suffice). The stages
// carry no index-derived state beyond their order; recording them
// (RecordStagesComputed) fills in the rest.
func PlanStages(pts []route.Point, r RouteInfo, s Settings) (stages []Stage, overCapacityDays int, err error) {
	if len(r.Tours) > 0 {
		tours := make([][]route.Point, 0, len(r.Tours))
		for _, t := range r.Tours {
			if t.StartPoint < 0 || t.EndPoint < t.StartPoint || t.EndPoint >= len(pts) {
				return nil, 0, &planError{fmt.Errorf("tour %s spans points %d..%d of a %d-point route", t.TourID, t.StartPoint, t.EndPoint, len(pts))}
			}
			tours = append(tours, pts[t.StartPoint:t.EndPoint+1])
		}
		return fromPacing(pacing.FromTours(tours), OriginSourceTour), 0, nil
	}
	res, err := pacing.Plan(pts, s.Pacing())
	if err != nil {
		if errors.Is(err, pacing.ErrEmptyRoute) || errors.Is(err, pacing.ErrInvalidSettings) || errors.Is(err, pacing.ErrInvalidPoint) {
			return nil, 0, &planError{err}
		}
		return nil, 0, err
	}
	if res.OverCapacity != nil {
		overCapacityDays = res.OverCapacity.ExtraDays
	}
	return fromPacing(res.Stages, OriginPaced), overCapacityDays, nil
}

// Pacing is the pacing engine's view of the settings. Rest days are stages
// of the trip, not settings, so a re-pacing starts without them.
func (s Settings) Pacing() pacing.Settings {
	return pacing.Settings{
		FatigueFactor:       s.FatigueFactor,
		ElevationPenalty:    s.ElevationPenaltyM,
		MaxDistancePerDayKm: s.MaxDistancePerDayKm,
		AverageSpeedKmh:     s.AverageSpeedKmH,
		DepartureHour:       s.DepartureHour,
		EbikeMode:           s.EbikeMode,
		StartDate:           s.StartDate.Time(),
		EndDate:             s.EndDate.Time(),
	}
}

// fromPacing maps the engine's stages to the trip's, measuring each one's
// span along the route.
func fromPacing(in []pacing.Stage, origin Origin) []Stage {
	out := make([]Stage, len(in))
	at := 0.0
	for i, p := range in {
		out[i] = Stage{
			Index: i, Origin: origin, RestDay: p.RestDay,
			Start: p.Start, End: p.End, Geometry: p.Geometry,
			DistanceM: p.DistanceM, AscentM: p.AscentM, DescentM: p.DescentM,
			OnRoute: !p.RestDay, RouteStartM: at, RouteEndM: at + p.DistanceM,
		}
		if p.RestDay {
			out[i].Origin = OriginRestDay
		}
		at += p.DistanceM
	}
	return out
}

// Time is the date as midnight UTC (the zero time when unset), the form the
// pacing engine and the rules take dates in.
func (d Date) Time() time.Time { return d.t }
