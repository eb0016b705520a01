package consumer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/tripstore"
)

// computeStages paces the trip's route for the key its stages must be for
// now and records StagesComputed (Decide appends the AnalysisRequested that
// follows). A job for a settings change that did not touch pacing finds
// nothing requested and does nothing.
func (w *Workers) computeStages(ctx context.Context, j job.Job, progress func()) error {
	l, err := w.trips.Load(ctx, tripstore.System(), j.TripID)
	if err != nil {
		return err
	}
	st := l.State
	if st.StagesProgress.Status != trip.ComputationRequested || st.Route == nil {
		return nil
	}
	key := st.StagesProgress.For
	pts, err := w.trips.Route(ctx, key.RouteHash)
	if err != nil {
		return fmt.Errorf("load route %s: %w", key.RouteHash, err)
	}
	progress()
	stages, over, err := Plan(pts, *st.Route, st.Settings)
	if err != nil {
		return err
	}
	progress()
	_, err = w.trips.Execute(ctx, tripstore.System(), j.TripID,
		trip.RecordStagesComputed{For: key, Stages: stages, OverCapacityDays: over},
		options(j, "stages:"+key.RouteHash+":"+key.PacingHash, key.RouteHash+"/"+key.PacingHash))
	return err
}

// Plan cuts the route into the trip's stages: one per tour for a Komoot
// collection (pacing.FromTours), else Roadbook's pacing engine with the
// trip's settings. Refusals of the engine are permanent.
func Plan(pts []route.Point, ri trip.RouteInfo, s trip.Settings) ([]trip.Stage, int, error) {
	if len(ri.Tours) > 0 {
		tours := make([][]route.Point, 0, len(ri.Tours))
		for _, t := range ri.Tours {
			if t.StartPoint < 0 || t.EndPoint < t.StartPoint || t.EndPoint >= len(pts) {
				return nil, 0, Permanent(fmt.Errorf("tour %s spans points %d..%d of a %d-point route", t.TourID, t.StartPoint, t.EndPoint, len(pts)))
			}
			tours = append(tours, pts[t.StartPoint:t.EndPoint+1])
		}
		return fromPacing(pacing.FromTours(tours), trip.OriginSourceTour), 0, nil
	}
	res, err := pacing.Plan(pts, PacingSettings(s))
	if err != nil {
		if errors.Is(err, pacing.ErrEmptyRoute) || errors.Is(err, pacing.ErrInvalidSettings) || errors.Is(err, pacing.ErrInvalidPoint) {
			return nil, 0, Permanent(err)
		}
		return nil, 0, err
	}
	over := 0
	if res.OverCapacity != nil {
		over = res.OverCapacity.ExtraDays
	}
	return fromPacing(res.Stages, trip.OriginPaced), over, nil
}

// PacingSettings maps a trip's settings to the engine's. Rest days are
// stages of the trip, not settings, so a re-pacing starts without them.
func PacingSettings(s trip.Settings) pacing.Settings {
	return pacing.Settings{
		FatigueFactor:       s.FatigueFactor,
		ElevationPenalty:    s.ElevationPenaltyM,
		MaxDistancePerDayKm: s.MaxDistancePerDayKm,
		AverageSpeedKmh:     s.AverageSpeedKmH,
		DepartureHour:       s.DepartureHour,
		EbikeMode:           s.EbikeMode,
		StartDate:           dateTime(s.StartDate),
		EndDate:             dateTime(s.EndDate),
	}
}

// dateTime is a trip date as UTC midnight (zero when unset).
func dateTime(d trip.Date) time.Time {
	if d.IsZero() {
		return time.Time{}
	}
	t, err := time.Parse(time.DateOnly, d.String())
	if err != nil {
		return time.Time{}
	}
	return t
}

// fromPacing maps the engine's stages to the trip's, measuring each one's
// span along the route.
func fromPacing(in []pacing.Stage, origin trip.Origin) []trip.Stage {
	out := make([]trip.Stage, len(in))
	at := 0.0
	for i, p := range in {
		out[i] = trip.Stage{
			Index: i, Origin: origin, RestDay: p.RestDay,
			Start: p.Start, End: p.End, Geometry: p.Geometry,
			DistanceM: p.DistanceM, AscentM: p.AscentM, DescentM: p.DescentM,
			OnRoute: !p.RestDay, RouteStartM: at, RouteEndM: at + p.DistanceM,
		}
		if p.RestDay {
			out[i].Origin = trip.OriginRestDay
		}
		at += p.DistanceM
	}
	return out
}

// stagesFailed records StagesFailed for the key the trip waits for.
func (w *Workers) stagesFailed(ctx context.Context, j job.Job, cause error, retryable bool) error {
	l, err := w.trips.Load(ctx, tripstore.System(), j.TripID)
	if err != nil {
		return err
	}
	if l.State.StagesProgress.Status != trip.ComputationRequested {
		return nil
	}
	key := l.State.StagesProgress.For
	_, err = w.trips.Execute(ctx, tripstore.System(), j.TripID,
		trip.RecordStagesFailed{For: key, Reason: cause.Error(), Retryable: retryable},
		options(j, "stages-failed:"+key.RouteHash+":"+key.PacingHash, key.RouteHash+"/"+key.PacingHash))
	return err
}
