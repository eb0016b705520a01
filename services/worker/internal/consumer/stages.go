package consumer

import (
	"context"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/tripstore"
)

// computeStages runs the stages job: the planner's ComputeStages (the same
// use case the tests drive), its result recorded with the job's derived
// event ids.
func (w *Workers) computeStages(ctx context.Context, j job.Job, progress func()) error {
	return w.planner.ComputeStagesAt(ctx, j.TripID, j.At, progress, func(key trip.StagesKey) tripstore.Options {
		return options(j, "stages:"+key.RouteHash+":"+key.PacingHash, key.RouteHash+"/"+key.PacingHash)
	})
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
