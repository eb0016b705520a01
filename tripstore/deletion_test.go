package tripstore_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/tripstore"
)

func TestRemoveDeletedTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the deleted state names every share code the trip had, revoked and active, and all their index streams go", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ann := tripstore.User("ann")
		id := uuid.New()
		res, err := s.Execute(ctx, ann, id, trip.Create{SourceURL: komootURL}, tripstore.Options{})
		require.NoError(t, err)
		share := func() string {
			t.Helper()
			seed, err := s.IndexShareCode(ctx, id)
			require.NoError(t, err)
			res, err = s.Execute(ctx, ann, id, trip.Share{Version: res.State.Version, Rand: bytes.NewReader(seed)}, tripstore.Options{})
			require.NoError(t, err)
			return res.State.Share.Code
		}
		first := share()
		res, err = s.Execute(ctx, ann, id, trip.Unshare{Version: res.State.Version}, tripstore.Options{})
		require.NoError(t, err)
		second := share()
		require.NotEqual(t, first, second)

		res, err = s.Execute(ctx, ann, id, trip.Delete{Version: res.State.Version}, tripstore.Options{})
		require.NoError(t, err)
		require.NoError(t, s.RemoveDeletedTrip(ctx, id, res.State))

		for _, stream := range []eventstore.StreamID{"share-" + eventstore.StreamID(first), "share-" + eventstore.StreamID(second), tripstore.StreamID(id)} {
			_, err := s.Events().Stream(ctx, stream)
			require.ErrorIs(t, err, eventstore.ErrStreamDeleted, "%s", stream)
		}
		require.NoError(t, s.RemoveTrip(ctx, id), "removing again, from the events, finds nothing left to do")
	})
}
