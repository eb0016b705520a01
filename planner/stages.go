package planner

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

// UpdateStage edits one stage of the caller's trip: new end points, or a
// cut at a distance from its start. A cut walks the route, read here from
// the route blob of the trip as loaded and measured once per route
// (tripstore.Store.RouteLine): one load serves the points and the decision,
// and a rider's next cut on the same route measures nothing.
func (p *Planner) UpdateStage(ctx context.Context, w Write, tripID string, cmd trip.UpdateStage) (Outcome, error) {
	user, id, err := callerAnd(ctx, tripID)
	if err != nil {
		return Outcome{}, err
	}
	build := command(cmd)
	if cmd.DistanceM != nil {
		build = func(s trip.State) (trip.Command, error) {
			if s.Route != nil && cmd.Route.Points == nil { // read once, even when a conflict decides again
				line, err := p.trips.RouteLine(ctx, s.Route.Hash)
				if err != nil {
					return nil, err
				}
				cmd.Route = line
			}
			return cmd, nil
		}
	}
	return p.change(ctx, user, w, id, build, tripstore.Options{}, "")
}

// AddWaypoint puts a point of interest on a stage of the caller's trip; its
// id is derived from the idempotency key, so a replay names the same
// waypoint.
func (p *Planner) AddWaypoint(ctx context.Context, w Write, tripID string, cmd trip.AddWaypoint) (Outcome, error) {
	user, id, err := callerAnd(ctx, tripID)
	if err != nil {
		return Outcome{}, err
	}
	cmd.ID = derivedID(user, w).String()
	return p.change(ctx, user, w, id, command(cmd), tripstore.Options{}, cmd.ID)
}

// ComputeStages paces the route of a trip whose stages are requested, for
// the key they are requested for, and records StagesComputed (the domain
// appends the AnalysisRequested that follows). It is the stages worker's
// use case, and the tests' way of doing what the worker does: nothing
// requested, nothing done (a settings change that did not touch pacing).
// step, between the long steps, tells the caller the work is alive; record
// gives the options of the result's append (the job's derived event ids and
// metadata), given the key.
func (p *Planner) ComputeStages(ctx context.Context, id uuid.UUID, step func(), record func(trip.StagesKey) tripstore.Options) error {
	return p.ComputeStagesAt(ctx, id, 0, step, record)
}

// ComputeStagesAt is ComputeStages for the job the trip's event at stream
// version at set off (0: unknown): it decides on the state the worker's
// process already holds when that is at least as new
// (tripstore.Store.LoadAtLeast), which the relay in the same process
// handed it, and reads the trip otherwise. Nothing is lost either way: the
// result's append expects the version decided on, and a trip that moved on
// refuses it.
func (p *Planner) ComputeStagesAt(ctx context.Context, id uuid.UUID, at int64, step func(), record func(trip.StagesKey) tripstore.Options) error {
	l, err := p.trips.LoadAtLeast(ctx, tripstore.System(), id, at)
	if err != nil {
		return err
	}
	st := l.State
	if st.StagesProgress.Status != trip.ComputationRequested || st.Route == nil {
		return nil
	}
	key := st.StagesProgress.For
	// The measured route is cached by its content hash: re-pacing, and
	// the routes many trips share, read no blob (PlanStages only reads the
	// points it is given).
	line, err := p.trips.RouteLine(ctx, key.RouteHash)
	if err != nil {
		return fmt.Errorf("load route %s: %w", key.RouteHash, err)
	}
	pts := line.Points
	step()
	stages, over, err := trip.PlanStages(pts, *st.Route, st.Settings)
	if err != nil {
		return err
	}
	step()
	_, err = p.trips.Execute(ctx, tripstore.System(), id, trip.RecordStagesComputed{For: key, Stages: stages, OverCapacityDays: over}, record(key))
	return err
}
