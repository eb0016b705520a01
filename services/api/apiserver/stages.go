package apiserver

import (
	"context"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// stageEditService implements roadbookv1connect.StageEditServiceHandler.
type stageEditService struct{ *core }

var _ roadbookv1connect.StageEditServiceHandler = (*stageEditService)(nil)

// editResult is the common answer of the five edits.
type editResult struct {
	version   int64
	unchanged bool
	impact    *roadbookv1.Impact
	trip      *roadbookv1.TripDigest
}

// edit runs one structural edit, or previews it with validateOnly.
func (c *core) edit(ctx context.Context, procedure, id string, version int64, validateOnly bool, m proto.Message, key string, cmd trip.Command) (editResult, error) {
	user, err := c.user(ctx)
	if err != nil {
		return editResult{}, err
	}
	v := c.view()
	if validateOnly {
		l, err := c.load(ctx, user, id)
		if err != nil {
			return editResult{}, err
		}
		after, err := c.preview(l.State, cmd)
		if err != nil {
			return editResult{}, err
		}
		return editResult{version: l.State.Version, unchanged: true, impact: v.impact(l.State, after)}, nil
	}
	tid, err := tripID(id)
	if err != nil {
		return editResult{}, err
	}
	resp, err := run(ctx, c, write{procedure: procedure, user: user, tripID: tid, req: m, key: key, cmd: cmd},
		func(after trip.State) *roadbookv1.TripDigest { return v.digest(after, nil) })
	if err != nil {
		return editResult{}, err
	}
	return editResult{version: resp.Version, unchanged: resp.Version == version, trip: resp}, nil
}

func point(p *roadbookv1.LatLon) route.Point { return route.Point{Lat: p.GetLat(), Lon: p.GetLon()} }

func (s *stageEditService) InsertStage(ctx context.Context, req *connect.Request[roadbookv1.InsertStageRequest]) (*connect.Response[roadbookv1.InsertStageResponse], error) {
	m := req.Msg
	r, err := s.edit(ctx, roadbookv1connect.StageEditServiceInsertStageProcedure, m.TripId, m.Version, m.ValidateOnly, m,
		idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")),
		trip.InsertStage{Version: m.Version, Position: int(m.Position), Start: point(m.StartPoint), End: point(m.EndPoint)})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.InsertStageResponse{Version: r.version, VersionUnchanged: r.unchanged, Impact: r.impact, Trip: r.trip}), nil
}

func (s *stageEditService) UpdateStage(ctx context.Context, req *connect.Request[roadbookv1.UpdateStageRequest]) (*connect.Response[roadbookv1.UpdateStageResponse], error) {
	m := req.Msg
	cmd := trip.UpdateStage{Version: m.Version, Index: int(m.StageIndex)}
	switch ch := m.Change.(type) {
	case *roadbookv1.UpdateStageRequest_DistanceKm:
		d := ch.DistanceKm * 1000
		cmd.DistanceM = &d
		// The cut walks the route's raw points, read from the blob store.
		user, err := s.user(ctx)
		if err != nil {
			return nil, err
		}
		l, err := s.load(ctx, user, m.TripId)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		if l.State.Route != nil {
			if cmd.Route, err = s.trips.Route(ctx, l.State.Route.Hash); err != nil {
				return nil, s.fail(ctx, err)
			}
		}
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
	r, err := s.edit(ctx, roadbookv1connect.StageEditServiceUpdateStageProcedure, m.TripId, m.Version, m.ValidateOnly, m,
		idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")), cmd)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.UpdateStageResponse{Version: r.version, VersionUnchanged: r.unchanged, Impact: r.impact, Trip: r.trip}), nil
}

func (s *stageEditService) MoveStage(ctx context.Context, req *connect.Request[roadbookv1.MoveStageRequest]) (*connect.Response[roadbookv1.MoveStageResponse], error) {
	m := req.Msg
	r, err := s.edit(ctx, roadbookv1connect.StageEditServiceMoveStageProcedure, m.TripId, m.Version, m.ValidateOnly, m,
		idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")),
		trip.MoveStage{Version: m.Version, From: int(m.StageIndex), To: int(m.ToIndex)})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.MoveStageResponse{Version: r.version, VersionUnchanged: r.unchanged, Impact: r.impact, Trip: r.trip}), nil
}

func (s *stageEditService) DeleteStage(ctx context.Context, req *connect.Request[roadbookv1.DeleteStageRequest]) (*connect.Response[roadbookv1.DeleteStageResponse], error) {
	m := req.Msg
	r, err := s.edit(ctx, roadbookv1connect.StageEditServiceDeleteStageProcedure, m.TripId, m.Version, m.ValidateOnly, m,
		idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")),
		trip.DeleteStage{Version: m.Version, Index: int(m.StageIndex)})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.DeleteStageResponse{Version: r.version, VersionUnchanged: r.unchanged, Impact: r.impact, Trip: r.trip}), nil
}

func (s *stageEditService) AddRestDay(ctx context.Context, req *connect.Request[roadbookv1.AddRestDayRequest]) (*connect.Response[roadbookv1.AddRestDayResponse], error) {
	m := req.Msg
	r, err := s.edit(ctx, roadbookv1connect.StageEditServiceAddRestDayProcedure, m.TripId, m.Version, m.ValidateOnly, m,
		idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")),
		trip.AddRestDay{Version: m.Version, AfterIndex: int(m.AfterStageIndex)})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.AddRestDayResponse{Version: r.version, VersionUnchanged: r.unchanged, Impact: r.impact, Trip: r.trip}), nil
}

func (s *stageEditService) AddWaypoint(ctx context.Context, req *connect.Request[roadbookv1.AddWaypointRequest]) (*connect.Response[roadbookv1.AddWaypointResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := tripID(m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	key := idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key"))
	wid := uuid.NewString()
	if key != "" {
		wid = createID(user, roadbookv1connect.StageEditServiceAddWaypointProcedure, key).String()
	}
	resp, err := run(ctx, s.core, write{procedure: roadbookv1connect.StageEditServiceAddWaypointProcedure, user: user, tripID: id,
		req: m, key: key, cmd: trip.AddWaypoint{Version: m.Version, StageIndex: int(m.StageIndex), ID: wid,
			Name: m.Name, Category: m.Category, Location: point(m.Location)}},
		func(after trip.State) *roadbookv1.AddWaypointResponse {
			out := &roadbookv1.AddWaypointResponse{Version: after.Version, VersionUnchanged: true}
			if int(m.StageIndex) < len(after.Stages) {
				for _, w := range after.Stages[m.StageIndex].Waypoints {
					if w.ID == wid {
						out.Waypoint = waypointPB(w)
					}
				}
			}
			return out
		})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}
