package apiserver_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/testkit/fixtures"
)

// TestUploadByteOrderMark: an upload that starts with a UTF-8 byte-order
// mark is judged on its content (DOMAIN §2), so a real track behind the mark
// becomes a trip, and the evidence run's gpxpy_unicode_with_bom.gpx is
// refused for having no track points, with a message that says so.
func TestUploadByteOrderMark(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	const bom = "\xef\xbb\xbf"

	t.Run("a track behind a UTF-8 byte-order mark becomes a trip", func(t *testing.T) {
		t.Parallel()
		c := roadbookv1connect.NewTripServiceClient(h.http, h.url, bearer(h.token(t, "bom-track")))
		doc := append([]byte(bom), fixtures.Read(t, fixtures.OsloTrondheim)...)
		created, err := c.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
			Filename: "oslo.gpx", ContentType: "application/gpx+xml", Content: doc}))
		require.NoError(t, err)
		got, err := c.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: created.Msg.TripId}))
		require.NoError(t, err)
		require.Equal(t, "brouter_fastbike_0", got.Msg.Trip.Title, "the title is read past the mark")
		require.InDelta(t, 627000, got.Msg.Trip.DistanceM, 15000)
	})
	t.Run("the waypoint-only BOM file is refused for its missing track and writes nothing", func(t *testing.T) {
		t.Parallel()
		c := roadbookv1connect.NewTripServiceClient(h.http, h.url, bearer(h.token(t, "bom-waypoint")))
		_, err := c.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
			Filename: "unicode_with_bom.gpx", Content: fixtures.Read(t, fixtures.UnicodeBOM)}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.Equal(t, "content", errorInfo(t, err).Field)
		require.Contains(t, err.Error(), "no track points (trkpt) or route points (rtept)")
		require.Contains(t, err.Error(), "1 waypoint")
		require.NotContains(t, err.Error(), "encoding")
		page, err := h.store.ListStreams(ctx, eventstore.ListQuery{Owner: "bom-waypoint", Limit: 10})
		require.NoError(t, err)
		require.Empty(t, page.Streams)
	})
}
