package apiserver_test

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/tripstore"
)

func TestShareService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)

	t.Run("get share shows the owner the active link and nobody else", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "sharer", nil)
		d := h.readyTrip(t, c)
		none, err := c.shares.GetShare(ctx, connect.NewRequest(&roadbookv1.GetShareRequest{TripId: d.TripId}))
		require.NoError(t, err)
		require.Nil(t, none.Msg.Share)
		sh, err := c.shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: d.TripId, Version: d.Version}))
		require.NoError(t, err)
		got, err := c.shares.GetShare(ctx, connect.NewRequest(&roadbookv1.GetShareRequest{TripId: d.TripId}))
		require.NoError(t, err)
		require.Equal(t, sh.Msg.Share.Code, got.Msg.Share.Code)
		require.Equal(t, "https://roadbook.test/s/"+sh.Msg.Share.Code, got.Msg.Share.Url)
		_, err = h.as(t, "snoop", nil).shares.GetShare(ctx, connect.NewRequest(&roadbookv1.GetShareRequest{TripId: d.TripId}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
	})

	t.Run("the shared route reads without a token, whole or per stage, bounded by max points", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "mapper", nil)
		d := h.readyTrip(t, c)
		sh, err := c.shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: d.TripId, Version: d.Version}))
		require.NoError(t, err)
		anon := roadbookv1connect.NewPublicShareServiceClient(h.http, h.url)
		whole, err := anon.GetSharedRoute(ctx, connect.NewRequest(&roadbookv1.GetSharedRouteRequest{Code: sh.Msg.Share.Code, MaxPoints: new(uint32(100))}))
		require.NoError(t, err)
		require.LessOrEqual(t, whole.Msg.Geometry.PointCount, uint32(100))
		require.Greater(t, whole.Msg.Geometry.PointCount, uint32(10))
		full, err := anon.GetSharedRoute(ctx, connect.NewRequest(&roadbookv1.GetSharedRouteRequest{Code: sh.Msg.Share.Code}))
		require.NoError(t, err)
		require.InDelta(t, sumStages(d), full.Msg.Geometry.DistanceM, sumStages(d)*0.01, "the stages joined")
		require.Greater(t, full.Msg.Geometry.PointCount, whole.Msg.Geometry.PointCount)
		require.Less(t, whole.Msg.Geometry.DistanceM, full.Msg.Geometry.DistanceM, "a thinned line cuts corners")
		require.Equal(t, "public, max-age=60", whole.Header().Get("Cache-Control"))

		one, err := anon.GetSharedRoute(ctx, connect.NewRequest(&roadbookv1.GetSharedRouteRequest{Code: sh.Msg.Share.Code, StageIndex: new(uint32(1))}))
		require.NoError(t, err)
		require.InDelta(t, d.Stages[1].DistanceM, one.Msg.Geometry.DistanceM, d.Stages[1].DistanceM*0.01)
		require.NotEmpty(t, one.Msg.Geometry.ElevationsM)

		_, err = anon.GetSharedRoute(ctx, connect.NewRequest(&roadbookv1.GetSharedRouteRequest{Code: "AAAAAAAA"}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
	})
}

func sumStages(d *roadbookv1.TripDigest) float64 {
	var total float64
	for _, s := range d.Stages {
		total += s.DistanceM
	}
	return total
}

func TestShareCodeLength(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)
	c := h.as(t, "oldtimer", nil)
	anon := roadbookv1connect.NewPublicShareServiceClient(h.http, h.url)

	t.Run("a new link has a 16-character code, 96 bits", func(t *testing.T) {
		t.Parallel()
		d := h.readyTrip(t, c)
		sh, err := c.shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: d.TripId, Version: d.Version}))
		require.NoError(t, err)
		require.Regexp(t, `^[A-Za-z0-9_-]{16}$`, sh.Msg.Share.Code)
		_, err = anon.GetSharedTrip(ctx, connect.NewRequest(&roadbookv1.GetSharedTripRequest{Code: sh.Msg.Share.Code}))
		require.NoError(t, err)
	})

	t.Run("a link made when codes had 8 characters keeps working until it is revoked", func(t *testing.T) {
		t.Parallel()
		d := h.readyTrip(t, c)
		const old = "0ldL1nk_"
		id := uuid.MustParse(d.TripId)
		// What IndexShareCode and a 6-byte Share recorded before codes grew.
		_, err := h.store.Append(ctx, eventstore.AppendRequest{Stream: "share-" + old, Expected: eventstore.NoStream(), Owner: "roadbook:share-index",
			Events: []eventstore.NewEvent{{Payload: wrapperspb.String(d.TripId)}}})
		require.NoError(t, err)
		_, err = h.store.Append(ctx, eventstore.AppendRequest{Stream: tripstore.StreamID(id), Expected: eventstore.Exact(h.streamVersion(t, d.TripId)), Owner: "oldtimer",
			Events: []eventstore.NewEvent{{Payload: &eventsv1.TripShared{ShareCode: old}, Metadata: eventstore.Metadata{Actor: "oldtimer"}}}})
		require.NoError(t, err)

		got, err := anon.GetSharedTrip(ctx, connect.NewRequest(&roadbookv1.GetSharedTripRequest{Code: old}))
		require.NoError(t, err)
		require.Len(t, got.Msg.Trip.Stages, len(d.Stages))
		page, err := h.http.Get(h.url + "/s/" + old)
		require.NoError(t, err)
		require.NoError(t, page.Body.Close())
		require.Equal(t, http.StatusOK, page.StatusCode)
		mine, err := c.shares.GetShare(ctx, connect.NewRequest(&roadbookv1.GetShareRequest{TripId: d.TripId}))
		require.NoError(t, err)
		require.Equal(t, old, mine.Msg.Share.Code)

		_, err = c.shares.UnshareTrip(ctx, connect.NewRequest(&roadbookv1.UnshareTripRequest{TripId: d.TripId, Version: d.Version}))
		require.NoError(t, err)
		_, err = anon.GetSharedTrip(ctx, connect.NewRequest(&roadbookv1.GetSharedTripRequest{Code: old}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
		again, err := c.shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: d.TripId, Version: d.Version}))
		require.NoError(t, err)
		require.Len(t, again.Msg.Share.Code, 16)
	})
}

func TestUnshareNamedLink(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)
	c := h.as(t, "namer", nil)
	d := h.readyTrip(t, c)
	share := func() string {
		sh, err := c.shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: d.TripId, Version: d.Version}))
		require.NoError(t, err)
		return sh.Msg.Share.Code
	}
	unshare := func(code *string) error {
		_, err := c.shares.UnshareTrip(ctx, connect.NewRequest(&roadbookv1.UnshareTripRequest{TripId: d.TripId, Version: d.Version, ShareCode: code}))
		return err
	}
	a := share()
	require.NoError(t, unshare(&a), "the link named is the active one")
	b := share()

	err := unshare(&a)
	require.Equal(t, connect.CodeAlreadyExists, connect.CodeOf(err), "link A is no longer the active one")
	require.Equal(t, roadbookv1.Code_CODE_CONFLICT, errorInfo(t, err).Code)
	got, err := c.shares.GetShare(ctx, connect.NewRequest(&roadbookv1.GetShareRequest{TripId: d.TripId}))
	require.NoError(t, err)
	require.Equal(t, b, got.Msg.Share.Code, "link B was not revoked")
	require.NoError(t, unshare(nil), "without a code the active link is revoked, as before")
}
