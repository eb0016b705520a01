package tripstore_test

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/sqlite"
	"github.com/roadbook/roadbook/tripstore"
)

func newStore(t *testing.T) *tripstore.Store {
	t.Helper()
	ctx := context.Background()
	es, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "events.db"))
	require.NoError(t, err)
	require.NoError(t, es.Migrate(ctx))
	t.Cleanup(es.Close)
	return tripstore.New(es, func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) })
}

const komootURL = "https://www.komoot.com/tour/123456"

func TestStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("creates a trip owned by its creator and lists its summary", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := uuid.New()
		res, err := s.Execute(ctx, tripstore.User("ann"), id, trip.Create{SourceURL: komootURL, Title: "Alps"}, tripstore.Options{})
		require.NoError(t, err)
		require.True(t, res.Exists)

		l, err := s.Load(ctx, tripstore.User("ann"), id)
		require.NoError(t, err)
		require.Equal(t, "Alps", l.State.Title)
		require.Equal(t, id.String(), l.State.ID)

		page, err := s.Events().ListStreams(ctx, eventstore.ListQuery{Owner: "ann", Limit: 10})
		require.NoError(t, err)
		require.Len(t, page.Streams, 1)
		require.Equal(t, "Alps", page.Streams[0].Summary.Title)
		require.Equal(t, "draft", page.Streams[0].Summary.Status)
		require.JSONEq(t, `{"distanceM":0,"ascentM":0,"stageCount":0,"sourceKind":"komoot_tour","shared":false,"version":1,"phase":"computing"}`,
			string(page.Streams[0].Summary.Data))
	})

	t.Run("answers not found alike for a missing trip and someone else's", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := uuid.New()
		_, err := s.Execute(ctx, tripstore.User("ann"), id, trip.Create{SourceURL: komootURL}, tripstore.Options{})
		require.NoError(t, err)

		_, errForeign := s.Load(ctx, tripstore.User("bob"), id)
		_, errMissing := s.Load(ctx, tripstore.User("bob"), uuid.New())
		require.ErrorIs(t, errForeign, trip.ErrNotFound)
		require.Equal(t, errMissing.Error(), errForeign.Error())

		_, err = s.Execute(ctx, tripstore.User("bob"), id, trip.Share{Version: 1, Rand: rand.Reader}, tripstore.Options{})
		require.ErrorIs(t, err, trip.ErrNotFound)
		l, err := s.Load(ctx, tripstore.User("ann"), id)
		require.NoError(t, err)
		require.False(t, l.State.Share.Active(), "a foreign caller changed nothing")
	})

	t.Run("lets the system act on any trip", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := uuid.New()
		_, err := s.Execute(ctx, tripstore.User("ann"), id, trip.Create{SourceURL: komootURL}, tripstore.Options{})
		require.NoError(t, err)
		_, err = s.Load(ctx, tripstore.System(), id)
		require.NoError(t, err)
	})

	t.Run("stores route points once and reads them back", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		pts := []route.Point{{Lat: 59.91, Lon: 10.75, Ele: 12, HasEle: true}, {Lat: 59.92, Lon: 10.76, Ele: 20, HasEle: true}}
		h1, err := s.PutRoute(ctx, pts)
		require.NoError(t, err)
		h2, err := s.PutRoute(ctx, pts)
		require.NoError(t, err)
		require.Equal(t, h1, h2)
		got, err := s.Route(ctx, h1)
		require.NoError(t, err)
		require.Len(t, got, 2)
		require.InDelta(t, 59.91, got[0].Lat, 1e-7)
	})

	t.Run("refuses a malformed route hash by name", func(t *testing.T) {
		t.Parallel()
		_, err := newStore(t).Route(ctx, "not-a-hash")
		require.ErrorContains(t, err, "not 64 hex digits")
	})
}
