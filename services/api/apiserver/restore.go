package apiserver

import (
	"context"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// RestoreStageLayout is undo and redo of stage edits (planner.RestoreStageLayout).
func (s *stageEditService) RestoreStageLayout(ctx context.Context, req *connect.Request[roadbookv1.RestoreStageLayoutRequest]) (*connect.Response[roadbookv1.RestoreStageLayoutResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, m.ValidateOnly, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.RestoreStageLayout(ctx, w, m.TripId, trip.RestoreStageLayout{Version: m.Version, LayoutVersion: m.LayoutVersion})
	}, func(o planner.Outcome) *roadbookv1.RestoreStageLayoutResponse {
		e := v.editAnswer(o, m.Version)
		return &roadbookv1.RestoreStageLayoutResponse{Version: e.version, VersionUnchanged: e.unchanged, Impact: e.impact, Trip: e.trip}
	})
}
