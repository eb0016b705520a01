package apiserver

import (
	"context"
	"math"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// accommodationService implements roadbookv1connect.AccommodationServiceHandler.
type accommodationService struct{ *shared }

var _ roadbookv1connect.AccommodationServiceHandler = (*accommodationService)(nil)

// chosenStage is the stage detail a choice answers with.
func chosenStage(after trip.State, index uint32) *roadbookv1.StageDetail {
	if int(index) < len(after.Stages) {
		return stageDetail(after.Stages[index], after.Settings)
	}
	return nil
}

func (s *accommodationService) ChooseAccommodation(ctx context.Context, req *connect.Request[roadbookv1.ChooseAccommodationRequest]) (*connect.Response[roadbookv1.ChooseAccommodationResponse], error) {
	m := req.Msg
	return write(ctx, s.shared, req, m.IdempotencyKey, false, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Change(ctx, w, m.TripId, trip.ChooseAccommodation{Version: m.Version, StageIndex: int(m.StageIndex), ProviderID: m.AccommodationId})
	}, func(o planner.Outcome) *roadbookv1.ChooseAccommodationResponse {
		return &roadbookv1.ChooseAccommodationResponse{Version: o.After.Version, VersionUnchanged: o.After.Version == m.Version,
			Stage: chosenStage(o.After, m.StageIndex)}
	})
}

func (s *accommodationService) SetManualAccommodation(ctx context.Context, req *connect.Request[roadbookv1.SetManualAccommodationRequest]) (*connect.Response[roadbookv1.SetManualAccommodationResponse], error) {
	m := req.Msg
	return write(ctx, s.shared, req, m.IdempotencyKey, false, func(w planner.Write) (planner.Outcome, error) {
		return s.planner.Change(ctx, w, m.TripId, trip.ChooseAccommodation{Version: m.Version, StageIndex: int(m.StageIndex), Manual: manualAccommodation(m)})
	}, func(o planner.Outcome) *roadbookv1.SetManualAccommodationResponse {
		return &roadbookv1.SetManualAccommodationResponse{Version: o.After.Version, VersionUnchanged: o.After.Version == m.Version,
			Stage: chosenStage(o.After, m.StageIndex)}
	})
}

// manualAccommodation is a free-text accommodation as the domain keeps it
// (a given price is exact).
func manualAccommodation(m *roadbookv1.SetManualAccommodationRequest) *trip.Accommodation {
	acc := &trip.Accommodation{Name: m.Name, Type: accTypeFromPB(m.Type), Website: m.Website}
	if m.Location != nil {
		acc.Location = point(m.Location)
	}
	if m.PriceEur != nil {
		acc.PriceMinEUR, acc.PriceMaxEUR, acc.PriceExact = *m.PriceEur, *m.PriceEur, true
	}
	return acc
}

func (s *accommodationService) RescanAccommodations(ctx context.Context, req *connect.Request[roadbookv1.RescanAccommodationsRequest]) (*connect.Response[roadbookv1.RescanAccommodationsResponse], error) {
	m := req.Msg
	return write(ctx, s.shared, req, m.IdempotencyKey, false, func(w planner.Write) (planner.Outcome, error) {
		idx := make([]int, len(m.StageIndexes))
		for i, v := range m.StageIndexes {
			idx[i] = int(v)
		}
		return s.planner.RescanAccommodations(ctx, w, m.TripId, trip.RescanAccommodations{Version: m.Version, RadiusM: int(math.Round(m.RadiusKm * 1000)), StageIndexes: idx})
	}, func(o planner.Outcome) *roadbookv1.RescanAccommodationsResponse {
		return &roadbookv1.RescanAccommodationsResponse{Version: o.After.Version, VersionUnchanged: true,
			Next: getTripNext(m.TripId, 5, "the accommodation search is running")}
	})
}
