package apiserver

import (
	"context"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// stageEditService implements roadbookv1connect.StageEditServiceHandler.
type stageEditService struct{ *shared }

var _ roadbookv1connect.StageEditServiceHandler = (*stageEditService)(nil)

// edited is the common answer of the five stage edits: the version, the
// impact of a preview, the trip's digest after a write.
type edited struct {
	version   int64
	unchanged bool
	impact    *roadbookv1.Impact
	trip      *roadbookv1.TripDigest
}

// editAnswer is an edit's answer for the version the caller sent.
func (v view) editAnswer(o planner.Outcome, sent int64) edited {
	e := edited{}
	e.version, e.unchanged, e.impact = v.versions(o, sent)
	if !o.Preview {
		e.trip = v.digest(o.After, nil)
	}
	return e
}

func point(p *roadbookv1.LatLon) route.Point { return route.Point{Lat: p.GetLat(), Lon: p.GetLon()} }

func (s *stageEditService) InsertStage(ctx context.Context, req *connect.Request[roadbookv1.InsertStageRequest]) (*connect.Response[roadbookv1.InsertStageResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, m.ValidateOnly, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Change(ctx, w, m.TripId, trip.InsertStage{Version: m.Version, Position: int(m.Position), Start: point(m.StartPoint), End: point(m.EndPoint)})
	}, func(o planner.Outcome) *roadbookv1.InsertStageResponse {
		e := v.editAnswer(o, m.Version)
		return &roadbookv1.InsertStageResponse{Version: e.version, VersionUnchanged: e.unchanged, Impact: e.impact, Trip: e.trip}
	})
}

func (s *stageEditService) UpdateStage(ctx context.Context, req *connect.Request[roadbookv1.UpdateStageRequest]) (*connect.Response[roadbookv1.UpdateStageResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, m.ValidateOnly, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.UpdateStage(ctx, w, m.TripId, updateStage(m))
	}, func(o planner.Outcome) *roadbookv1.UpdateStageResponse {
		e := v.editAnswer(o, m.Version)
		return &roadbookv1.UpdateStageResponse{Version: e.version, VersionUnchanged: e.unchanged, Impact: e.impact, Trip: e.trip}
	})
}

// updateStage is an UpdateStage request as the domain's command: a cut at
// a distance, or new end points.
func updateStage(m *roadbookv1.UpdateStageRequest) trip.UpdateStage {
	cmd := trip.UpdateStage{Version: m.Version, Index: int(m.StageIndex)}
	switch ch := m.Change.(type) {
	case *roadbookv1.UpdateStageRequest_DistanceKm:
		d := ch.DistanceKm * 1000
		cmd.DistanceM = &d
	case *roadbookv1.UpdateStageRequest_Points:
		if ch.Points.StartPoint != nil {
			p := point(ch.Points.StartPoint)
			cmd.Start = &p
		}
		if ch.Points.EndPoint != nil {
			p := point(ch.Points.EndPoint)
			cmd.End = &p
		}
	}
	return cmd
}

func (s *stageEditService) MoveStage(ctx context.Context, req *connect.Request[roadbookv1.MoveStageRequest]) (*connect.Response[roadbookv1.MoveStageResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, m.ValidateOnly, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Change(ctx, w, m.TripId, trip.MoveStage{Version: m.Version, From: int(m.StageIndex), To: int(m.ToIndex)})
	}, func(o planner.Outcome) *roadbookv1.MoveStageResponse {
		e := v.editAnswer(o, m.Version)
		return &roadbookv1.MoveStageResponse{Version: e.version, VersionUnchanged: e.unchanged, Impact: e.impact, Trip: e.trip}
	})
}

func (s *stageEditService) DeleteStage(ctx context.Context, req *connect.Request[roadbookv1.DeleteStageRequest]) (*connect.Response[roadbookv1.DeleteStageResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, m.ValidateOnly, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Change(ctx, w, m.TripId, trip.DeleteStage{Version: m.Version, Index: int(m.StageIndex)})
	}, func(o planner.Outcome) *roadbookv1.DeleteStageResponse {
		e := v.editAnswer(o, m.Version)
		return &roadbookv1.DeleteStageResponse{Version: e.version, VersionUnchanged: e.unchanged, Impact: e.impact, Trip: e.trip}
	})
}

func (s *stageEditService) AddRestDay(ctx context.Context, req *connect.Request[roadbookv1.AddRestDayRequest]) (*connect.Response[roadbookv1.AddRestDayResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, m.ValidateOnly, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Change(ctx, w, m.TripId, trip.AddRestDay{Version: m.Version, AfterIndex: int(m.AfterStageIndex)})
	}, func(o planner.Outcome) *roadbookv1.AddRestDayResponse {
		e := v.editAnswer(o, m.Version)
		return &roadbookv1.AddRestDayResponse{Version: e.version, VersionUnchanged: e.unchanged, Impact: e.impact, Trip: e.trip}
	})
}

func (s *stageEditService) AddWaypoint(ctx context.Context, req *connect.Request[roadbookv1.AddWaypointRequest]) (*connect.Response[roadbookv1.AddWaypointResponse], error) {
	m := req.Msg
	return write(ctx, s.shared, req, m.IdempotencyKey, false, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.AddWaypoint(ctx, w, m.TripId, trip.AddWaypoint{Version: m.Version, StageIndex: int(m.StageIndex),
			Name: m.Name, Category: m.Category, Location: point(m.Location)})
	}, func(o planner.Outcome) *roadbookv1.AddWaypointResponse {
		out := &roadbookv1.AddWaypointResponse{Version: o.After.Version, VersionUnchanged: true}
		if _, wp, ok := o.After.WaypointByID(o.Made); ok {
			out.Waypoint = waypointPB(wp)
		}
		return out
	})
}
