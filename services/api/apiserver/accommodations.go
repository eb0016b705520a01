package apiserver

import (
	"context"
	"math"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// accommodationService implements roadbookv1connect.AccommodationServiceHandler.
type accommodationService struct{ *core }

var _ roadbookv1connect.AccommodationServiceHandler = (*accommodationService)(nil)

func (s *accommodationService) ChooseAccommodation(ctx context.Context, req *connect.Request[roadbookv1.ChooseAccommodationRequest]) (*connect.Response[roadbookv1.ChooseAccommodationResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := tripID(m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	resp, err := run(ctx, s.core, write{procedure: roadbookv1connect.AccommodationServiceChooseAccommodationProcedure, user: user, tripID: id,
		req: m, key: idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")),
		cmd: trip.ChooseAccommodation{Version: m.Version, StageIndex: int(m.StageIndex), ProviderID: m.AccommodationId}},
		func(after trip.State) *roadbookv1.ChooseAccommodationResponse {
			out := &roadbookv1.ChooseAccommodationResponse{Version: after.Version, VersionUnchanged: after.Version == m.Version}
			if int(m.StageIndex) < len(after.Stages) {
				out.Stage = stageDetail(after.Stages[m.StageIndex], after.Settings)
			}
			return out
		})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}

func (s *accommodationService) SetManualAccommodation(ctx context.Context, req *connect.Request[roadbookv1.SetManualAccommodationRequest]) (*connect.Response[roadbookv1.SetManualAccommodationResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := tripID(m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	acc := &trip.Accommodation{Name: m.Name, Type: accTypeFromPB(m.Type), Website: m.Website}
	if m.Location != nil {
		acc.Location = point(m.Location)
	}
	if m.PriceEur != nil {
		acc.PriceMinEUR, acc.PriceMaxEUR, acc.PriceExact = *m.PriceEur, *m.PriceEur, true
	}
	resp, err := run(ctx, s.core, write{procedure: roadbookv1connect.AccommodationServiceSetManualAccommodationProcedure, user: user, tripID: id,
		req: m, key: idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")),
		cmd: trip.ChooseAccommodation{Version: m.Version, StageIndex: int(m.StageIndex), Manual: acc}},
		func(after trip.State) *roadbookv1.SetManualAccommodationResponse {
			out := &roadbookv1.SetManualAccommodationResponse{Version: after.Version, VersionUnchanged: after.Version == m.Version}
			if int(m.StageIndex) < len(after.Stages) {
				out.Stage = stageDetail(after.Stages[m.StageIndex], after.Settings)
			}
			return out
		})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}

func (s *accommodationService) RescanAccommodations(ctx context.Context, req *connect.Request[roadbookv1.RescanAccommodationsRequest]) (*connect.Response[roadbookv1.RescanAccommodationsResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := tripID(m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if err := s.limits.allow(ctx, "recompute", user+"/"+m.TripId, s.cfg.RateLimits.Recompute); err != nil {
		return nil, s.fail(ctx, err)
	}
	idx := make([]int, len(m.StageIndexes))
	for i, v := range m.StageIndexes {
		idx[i] = int(v)
	}
	resp, err := run(ctx, s.core, write{procedure: roadbookv1connect.AccommodationServiceRescanAccommodationsProcedure, user: user, tripID: id,
		req: m, key: idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")),
		cmd: trip.RescanAccommodations{Version: m.Version, RadiusM: int(math.Round(m.RadiusKm * 1000)), StageIndexes: idx}},
		func(after trip.State) *roadbookv1.RescanAccommodationsResponse {
			return &roadbookv1.RescanAccommodationsResponse{Version: after.Version, VersionUnchanged: true,
				Next: getTripNext(m.TripId, 5, "the accommodation search is running")}
		})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}
