package apiserver

import (
	"context"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/tripstore"
)

// RestoreStageLayout is undo and redo of stage edits: the layout of an
// earlier version is a fold of the trip's history (trip.LayoutAt), read
// here from the store and handed to the domain command, which records the
// restore as a new edit through the same path as the five structural edits
// (versioned, idempotent, validate_only answering the impact).
func (s *stageEditService) RestoreStageLayout(ctx context.Context, req *connect.Request[roadbookv1.RestoreStageLayoutRequest]) (*connect.Response[roadbookv1.RestoreStageLayoutResponse], error) {
	m := req.Msg
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	// Ownership first: a trip that is not the caller's is not found, before
	// any of its history is read.
	l, err := s.load(ctx, user, m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	history, err := s.history(ctx, m.TripId, l.State.StreamVersion)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	r, err := s.edit(ctx, roadbookv1connect.StageEditServiceRestoreStageLayoutProcedure, m.TripId, m.Version, m.ValidateOnly, m,
		idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")),
		trip.RestoreStageLayout{Version: m.Version, LayoutVersion: m.LayoutVersion, History: history})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.RestoreStageLayoutResponse{Version: r.version, VersionUnchanged: r.unchanged, Impact: r.impact, Trip: r.trip}), nil
}

// history reads a trip's events up to stream version upTo (what the caller
// just loaded; events are never rewritten, so a later write cannot change
// them).
func (c *core) history(ctx context.Context, id string, upTo int64) ([]trip.Event, error) {
	tid, err := tripID(id)
	if err != nil {
		return nil, err
	}
	recs, err := c.trips.Events().ReadStream(ctx, tripstore.StreamID(tid), 0, int(upTo))
	if err != nil {
		return nil, err
	}
	out := make([]trip.Event, len(recs))
	for i, r := range recs {
		out[i] = r.Payload
	}
	return out, nil
}
