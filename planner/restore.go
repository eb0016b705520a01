package planner

import (
	"context"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

// RestoreStageLayout is undo and redo of stage edits: it puts back the
// stage layout the caller's trip had at cmd.LayoutVersion, as a new edit
// through the same path as the other stage edits (versioned, idempotent,
// previewed). That layout is a fold of the trip's history
// (trip.LayoutAt), read here up to the trip as loaded, after the store
// has checked the trip is the caller's: events are never rewritten, so the
// read holds every earlier version, and a conflict's second decision reads
// again up to the newer trip.
func (p *Planner) RestoreStageLayout(ctx context.Context, w Write, tripID string, cmd trip.RestoreStageLayout) (Outcome, error) {
	user, id, err := callerAnd(ctx, tripID)
	if err != nil {
		return Outcome{}, err
	}
	build := func(s trip.State) (trip.Command, error) {
		cmd.History = nil
		if s.StreamVersion == 0 { // no trip: the domain refuses it
			return cmd, nil
		}
		recs, err := p.trips.Events().ReadStream(ctx, tripstore.StreamID(id), 0, int(s.StreamVersion))
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			cmd.History = append(cmd.History, r.Payload)
		}
		return cmd, nil
	}
	return p.change(ctx, user, w, id, build, tripstore.Options{}, "")
}
