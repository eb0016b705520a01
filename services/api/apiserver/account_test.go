package apiserver_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/hex"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/tripstore"
)

func TestAccountService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)

	t.Run("the export is a zip with every trip as JSON and a GPX per staged trip", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "archivist", nil)
		d := h.readyTrip(t, c)
		draft := createURL(t, c, "https://www.komoot.com/tour/3", "Someday", nil)
		resp, err := c.account.ExportAccount(ctx, connect.NewRequest(&roadbookv1.ExportAccountRequest{}))
		require.NoError(t, err)
		require.EqualValues(t, 2, resp.Msg.TripCount)
		require.Equal(t, "application/zip", resp.Msg.File.ContentType)
		zr, err := zip.NewReader(bytes.NewReader(resp.Msg.File.Content), int64(len(resp.Msg.File.Content)))
		require.NoError(t, err)
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		require.ElementsMatch(t, []string{"trips/" + d.TripId + ".json", "trips/" + d.TripId + ".gpx", "trips/" + draft + ".json"}, names)
	})

	t.Run("deleting the account removes every trip, event and route in bounded chunks and nobody else's", func(t *testing.T) {
		t.Parallel()
		const user = "leaver"
		c := h.as(t, user, nil)
		other := h.as(t, "stayer", nil)
		// 60 trips, more than one chunk: one uploaded with its own route, the
		// rest written through the trip store as the API would.
		up, err := c.trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "a.gpx", Content: smallGPX(61)}))
		require.NoError(t, err)
		for range 59 {
			_, err := h.trips.Execute(ctx, tripstore.User(user), uuid.New(), trip.Create{SourceURL: "https://www.komoot.com/tour/8"}, tripstore.Options{})
			require.NoError(t, err)
		}
		kept, err := other.trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "b.gpx", Content: smallGPX(62)}))
		require.NoError(t, err)
		l, err := h.trips.Load(ctx, tripstore.User(user), uuid.MustParse(up.Msg.TripId))
		require.NoError(t, err)
		routeHash, err := hex.DecodeString(l.State.Route.Hash)
		require.NoError(t, err)
		kl, err := h.trips.Load(ctx, tripstore.User("stayer"), uuid.MustParse(kept.Msg.TripId))
		require.NoError(t, err)
		keptHash, err := hex.DecodeString(kl.State.Route.Hash)
		require.NoError(t, err)

		_, err = c.account.DeleteAccount(ctx, connect.NewRequest(&roadbookv1.DeleteAccountRequest{ConfirmUserId: "someone-else"}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.Equal(t, "confirmUserId", errorInfo(t, err).Field)

		prev, err := c.account.DeleteAccount(ctx, connect.NewRequest(&roadbookv1.DeleteAccountRequest{ConfirmUserId: user, ValidateOnly: true}))
		require.NoError(t, err)
		require.EqualValues(t, 60, prev.Msg.Impact.TripsDeleted)
		require.False(t, prev.Msg.Deleted)
		require.Len(t, list(t, c, &roadbookv1.ListTripsRequest{PageSize: 100}).Trips, 60, "a preview deletes nothing")

		del, err := c.account.DeleteAccount(ctx, connect.NewRequest(&roadbookv1.DeleteAccountRequest{ConfirmUserId: user}))
		require.NoError(t, err)
		require.True(t, del.Msg.Deleted)
		require.EqualValues(t, 60, del.Msg.TripsDeleted)

		page, err := h.store.ListStreams(ctx, eventstore.ListQuery{Owner: user, Limit: 100})
		require.NoError(t, err)
		require.Empty(t, page.Streams, "no trip and no collection stream is left")
		_, err = h.store.ReadStream(ctx, tripstore.StreamID(uuid.MustParse(up.Msg.TripId)), 0, 0)
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
		chunks := 0
		for _, n := range h.faults.limitsOf(user) {
			require.LessOrEqual(t, n, 100, "every read is a bounded page")
			if n == 50 {
				chunks++
			}
		}
		require.GreaterOrEqual(t, chunks, 4, "the preview and the deletion each walked 60 trips in pages of 50")

		// The route blob is unreferenced now: housekeeping (past the grace
		// period) removes it and keeps the other user's.
		_, err = h.store.Housekeep(ctx, time.Now().Add(2*time.Hour))
		require.NoError(t, err)
		_, err = h.store.Blob(ctx, routeHash)
		require.ErrorIs(t, err, eventstore.ErrNotFound)
		_, err = h.store.Blob(ctx, keptHash)
		require.NoError(t, err)
		require.Len(t, list(t, other, &roadbookv1.ListTripsRequest{}).Trips, 1, "other users are untouched")

		// A returning user starts a new collection whose generation is higher.
		before := list(t, c, &roadbookv1.ListTripsRequest{}).Generation
		createURL(t, c, "https://www.komoot.com/tour/4", "", nil)
		require.Greater(t, list(t, c, &roadbookv1.ListTripsRequest{}).Generation, before)
	})
}
