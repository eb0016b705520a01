package apiserver_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/tripstore"
)

// offerHotel records one candidate near the end of stage 0, the way the
// accommodation worker does.
func (h *harness) offerHotel(t *testing.T, id string) {
	t.Helper()
	ctx := context.Background()
	tid := uuid.MustParse(id)
	l, err := h.trips.Load(ctx, tripstore.System(), tid)
	require.NoError(t, err)
	st := l.State.Stages[0]
	_, err = h.trips.Execute(ctx, tripstore.System(), tid, trip.RecordAccommodationsFound{RadiusM: 5000, Availability: "available",
		Stages: []trip.FoundAccommodations{{Stage: trip.StageRef{Index: 0, ContentHash: st.ContentHash}, Candidates: []trip.Accommodation{{
			ProviderID: "osm:node/42", Name: "Fjord Hotel", Type: trip.AccommodationHotel, Location: route.Point{Lat: st.End.Lat, Lon: st.End.Lon},
			PriceMinEUR: 90, PriceMaxEUR: 140, DistanceFromStageEndM: 300}}}}}, tripstore.Options{})
	require.NoError(t, err)
}

func TestAccommodationService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)

	t.Run("choosing an offered candidate and then a manual entry", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "sleeper", nil)
		d := h.readyTrip(t, c)
		h.offerHotel(t, d.TripId)
		st, err := c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: d.TripId, StageIndex: 0}))
		require.NoError(t, err)
		require.Len(t, st.Msg.Stage.AccommodationCandidates, 1)

		chose, err := c.accs.ChooseAccommodation(ctx, connect.NewRequest(&roadbookv1.ChooseAccommodationRequest{TripId: d.TripId, Version: st.Msg.Version,
			StageIndex: 0, AccommodationId: "osm:node/42"}))
		require.NoError(t, err)
		require.Equal(t, "Fjord Hotel", chose.Msg.Stage.ChosenAccommodation.GetName())
		require.False(t, chose.Msg.Stage.ChosenAccommodation.Manual)
		require.Equal(t, "Fjord Hotel", h.getTrip(t, c, d.TripId).Stages[0].AccommodationName)

		_, err = c.accs.ChooseAccommodation(ctx, connect.NewRequest(&roadbookv1.ChooseAccommodationRequest{TripId: d.TripId, Version: chose.Msg.Version,
			StageIndex: 0, AccommodationId: "osm:node/404"}))
		require.Error(t, err, "only an offered candidate can be chosen")

		manual, err := c.accs.SetManualAccommodation(ctx, connect.NewRequest(&roadbookv1.SetManualAccommodationRequest{TripId: d.TripId,
			Version: chose.Msg.Version, StageIndex: 1, Name: "Aunt's place", Type: roadbookv1.AccommodationType_ACCOMMODATION_TYPE_GUEST_HOUSE,
			PriceEur: new(float64(0))}))
		require.NoError(t, err)
		acc := manual.Msg.Stage.ChosenAccommodation
		require.Equal(t, "Aunt's place", acc.GetName())
		require.True(t, acc.Manual)
		require.True(t, acc.PriceExact)
		require.Equal(t, roadbookv1.AccommodationType_ACCOMMODATION_TYPE_GUEST_HOUSE, acc.Type)
		require.EqualValues(t, 2, h.getTrip(t, c, d.TripId).AccommodationsChosen)
	})

	t.Run("a rescan starts a search without moving the version", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "rescanner", nil)
		d := h.readyTrip(t, c)
		before := h.streamVersion(t, d.TripId)
		resp, err := c.accs.RescanAccommodations(ctx, connect.NewRequest(&roadbookv1.RescanAccommodationsRequest{TripId: d.TripId, Version: d.Version,
			RadiusKm: 10, StageIndexes: []uint32{0, 1}}))
		require.NoError(t, err)
		require.True(t, resp.Msg.VersionUnchanged)
		require.Equal(t, d.Version, resp.Msg.Version)
		require.Equal(t, "get_trip", resp.Msg.Next.GetTool())
		require.Greater(t, h.streamVersion(t, d.TripId), before, "the search request is recorded for the worker")
		require.Equal(t, d.Version, h.getTrip(t, c, d.TripId).Version)

		_, err = c.accs.RescanAccommodations(ctx, connect.NewRequest(&roadbookv1.RescanAccommodationsRequest{TripId: d.TripId, Version: d.Version, RadiusKm: 40}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err), "radius beyond 15 km")
	})
}
