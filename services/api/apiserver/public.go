package apiserver

import (
	"context"
	"net/http"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// publicShareService implements roadbookv1connect.PublicShareServiceHandler:
// reads without a token, rate-limited per client address, showing no owner
// identity and no timestamps.
type publicShareService struct{ *shared }

var _ roadbookv1connect.PublicShareServiceHandler = (*publicShareService)(nil)

// public resolves a code, counted against the caller's address.
func (s *publicShareService) public(ctx context.Context, peer connect.Peer, header http.Header, code string) (trip.State, error) {
	return s.planner.SharedTrip(ctx, code, clientAddr(peer.Addr, header, s.cfg.TrustedProxyHops))
}

// cacheable marks a public answer as cacheable by browsers and CDNs.
func cacheable[T any](r *connect.Response[T]) *connect.Response[T] {
	r.Header().Set("Cache-Control", "public, max-age=60")
	return r
}

func (s *publicShareService) GetSharedTrip(ctx context.Context, req *connect.Request[roadbookv1.GetSharedTripRequest]) (*connect.Response[roadbookv1.GetSharedTripResponse], error) {
	st, err := s.public(ctx, req.Peer(), req.Header(), req.Msg.Code)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := &roadbookv1.SharedTrip{Title: st.Title}
	tot := st.Totals()
	out.DistanceM, out.AscentM, out.DescentM = tot.DistanceM, tot.AscentM, tot.DescentM
	if st.Route != nil {
		out.ElevationKnown = st.Route.ElevationKnown
	}
	for _, sg := range st.Stages {
		out.Stages = append(out.Stages, &roadbookv1.SharedStage{Index: uint32(sg.Index), Date: sg.Date.String(), RestDay: sg.RestDay,
			DistanceM: sg.DistanceM, AscentM: sg.AscentM, DescentM: sg.DescentM, StartLabel: sg.StartLabel, EndLabel: sg.EndLabel})
	}
	return cacheable(connect.NewResponse(&roadbookv1.GetSharedTripResponse{Trip: out})), nil
}

func (s *publicShareService) GetSharedRoute(ctx context.Context, req *connect.Request[roadbookv1.GetSharedRouteRequest]) (*connect.Response[roadbookv1.GetSharedRouteResponse], error) {
	st, err := s.public(ctx, req.Peer(), req.Header(), req.Msg.Code)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	g, err := s.geometry(ctx, st, req.Msg.StageIndex, req.Msg.MaxPoints)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return cacheable(connect.NewResponse(&roadbookv1.GetSharedRouteResponse{Geometry: g})), nil
}

func (s *publicShareService) ExportSharedTrip(ctx context.Context, req *connect.Request[roadbookv1.ExportSharedTripRequest]) (*connect.Response[roadbookv1.ExportSharedTripResponse], error) {
	st, err := s.public(ctx, req.Peer(), req.Header(), req.Msg.Code)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	f, err := s.export(ctx, st, req.Msg.Format, req.Msg.StageIndex, true)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return cacheable(connect.NewResponse(&roadbookv1.ExportSharedTripResponse{File: f})), nil
}
