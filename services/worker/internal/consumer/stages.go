package consumer

import (
	"context"
	"fmt"

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
	stages, over, err := trip.PlanStages(pts, *st.Route, st.Settings)
	if err != nil {
		return err // trip.ErrCannotPlan is permanent (Decide)
	}
	progress()
	_, err = w.trips.Execute(ctx, tripstore.System(), j.TripID,
		trip.RecordStagesComputed{For: key, Stages: stages, OverCapacityDays: over},
		options(j, "stages:"+key.RouteHash+":"+key.PacingHash, key.RouteHash+"/"+key.PacingHash))
	return err
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
