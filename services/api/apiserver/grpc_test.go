package apiserver_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/geocoding"
)

// TestGRPC calls one unary RPC of every service with gRPC clients over
// HTTP/2 (h2c) on the same port as Connect (WatchTrip's gRPC stream is in
// TestAPI).
func TestGRPC(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)
	protocolResponder(t, h.nc, func(_ string, body []byte) *nats.Msg {
		var in roadbookv1.SearchPlacesRequest
		if proto.Unmarshal(body, &in) != nil {
			return replyMsg(nil, geocoding.Reply{Err: geocoding.CodeInvalidArgument})
		}
		data, _ := proto.Marshal(&roadbookv1.SearchPlacesResponse{Places: []*roadbookv1.Place{{Name: in.Query}}})
		return &nats.Msg{Data: data}
	})
	c := h.as(t, "grpc-user", h2c(), connect.WithGRPC())
	d := h.readyTrip(t, c)

	list, err := c.trips.ListTrips(ctx, connect.NewRequest(&roadbookv1.ListTripsRequest{}))
	require.NoError(t, err, "TripService")
	require.Len(t, list.Msg.Trips, 1)
	require.Positive(t, list.Msg.Generation)

	rest, err := c.edits.AddRestDay(ctx, connect.NewRequest(&roadbookv1.AddRestDayRequest{TripId: d.TripId, Version: d.Version, AfterStageIndex: 0}))
	require.NoError(t, err, "StageEditService")
	require.True(t, rest.Msg.Trip.Stages[1].RestDay)

	acc, err := c.accs.SetManualAccommodation(ctx, connect.NewRequest(&roadbookv1.SetManualAccommodationRequest{TripId: d.TripId, Version: rest.Msg.Version,
		StageIndex: 0, Name: "Camp", Type: roadbookv1.AccommodationType_ACCOMMODATION_TYPE_CAMP_SITE}))
	require.NoError(t, err, "AccommodationService")
	require.Equal(t, "Camp", acc.Msg.Stage.ChosenAccommodation.GetName())

	sh, err := c.shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: d.TripId, Version: acc.Msg.Version}))
	require.NoError(t, err, "ShareService")
	pub, err := c.public.GetSharedTrip(ctx, connect.NewRequest(&roadbookv1.GetSharedTripRequest{Code: sh.Msg.Share.Code}))
	require.NoError(t, err, "PublicShareService")
	require.Len(t, pub.Msg.Trip.Stages, len(rest.Msg.Trip.Stages))

	gpx, err := c.exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: d.TripId, Format: roadbookv1.ExportFormat_EXPORT_FORMAT_GPX}))
	require.NoError(t, err, "ExportService")
	require.Contains(t, string(gpx.Msg.File.Content), "<gpx")

	places, err := c.geo.SearchPlaces(ctx, connect.NewRequest(&roadbookv1.SearchPlacesRequest{Query: "Hamar"}))
	require.NoError(t, err, "GeocodingService")
	require.Equal(t, "Hamar", places.Msg.Places[0].Name)

	export, err := c.account.ExportAccount(ctx, connect.NewRequest(&roadbookv1.ExportAccountRequest{}))
	require.NoError(t, err, "AccountService")
	require.EqualValues(t, 1, export.Msg.TripCount)

	_, err = c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: "not-a-uuid"}))
	require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err), "errors travel as gRPC status")
	require.Equal(t, "tripId", errorInfo(t, err).Field)
}
