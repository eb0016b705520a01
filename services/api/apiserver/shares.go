package apiserver

import (
	"context"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// shareService implements roadbookv1connect.ShareServiceHandler.
type shareService struct{ *shared }

var _ roadbookv1connect.ShareServiceHandler = (*shareService)(nil)

func (s *shareService) ShareTrip(ctx context.Context, req *connect.Request[roadbookv1.ShareTripRequest]) (*connect.Response[roadbookv1.ShareTripResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, false, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Share(ctx, w, m.TripId, m.Version)
	}, func(o planner.Outcome) *roadbookv1.ShareTripResponse {
		now := s.cfg.Clock()
		return &roadbookv1.ShareTripResponse{Version: o.After.Version, VersionUnchanged: true, Share: v.share(o.After, &now)}
	})
}

func (s *shareService) UnshareTrip(ctx context.Context, req *connect.Request[roadbookv1.UnshareTripRequest]) (*connect.Response[roadbookv1.UnshareTripResponse], error) {
	m, v := req.Msg, s.view()
	return write(ctx, s.shared, req, m.IdempotencyKey, m.ValidateOnly, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Change(ctx, w, m.TripId, trip.Unshare{Version: m.Version, Code: m.GetShareCode()})
	}, func(o planner.Outcome) *roadbookv1.UnshareTripResponse {
		version, _, impact := v.versions(o, m.Version)
		return &roadbookv1.UnshareTripResponse{Version: version, VersionUnchanged: true, Impact: impact, Revoked: !o.Preview}
	})
}

func (s *shareService) GetShare(ctx context.Context, req *connect.Request[roadbookv1.GetShareRequest]) (*connect.Response[roadbookv1.GetShareResponse], error) {
	l, err := s.planner.Trip(ctx, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.GetShareResponse{Share: s.view().share(l.State, nil)}), nil
}
