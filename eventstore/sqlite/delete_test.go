package sqlite_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
)

func TestDeleteStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a deleted stream is gone, its id refused, and its positions never reused", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		create(t, s, "keep", "o", ev("k"))
		res := create(t, s, "gone", "o", ev("g1"), ev("g2"))
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: "gone", Expected: eventstore.Exact(2), Events: events("g3"), BlobRefs: [][]byte{{1}}})
		require.NoError(t, err)
		require.NoError(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: "gone", Version: 2, SchemaVersion: 1, Data: []byte("state")}))

		require.NoError(t, s.DeleteStream(ctx, "gone"))

		_, err = s.Stream(ctx, "gone")
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
		_, err = s.ReadStream(ctx, "gone", 0, 0)
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
		_, err = s.LoadSnapshot(ctx, "gone", 1)
		require.ErrorIs(t, err, eventstore.ErrNotFound)
		for _, e := range []eventstore.ExpectedVersion{eventstore.NoStream(), eventstore.Any()} {
			_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "gone", Expected: e, Owner: "o", Events: events("again")})
			require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
		}
		require.NoError(t, s.DeleteStream(ctx, "gone"), "deleting again is idempotent")
		require.ErrorIs(t, s.DeleteStream(ctx, "never"), eventstore.ErrNotFound)

		feed, cur, err := s.ReadFeed(ctx, eventstore.Cursor{}, 100)
		require.NoError(t, err)
		require.Equal(t, []string{"k"}, texts(t, feed))
		require.Equal(t, int64(1), cur.Position)

		// The deleted events held the highest positions; new ones go past them,
		// so a reader whose cursor was already there misses nothing.
		next := create(t, s, "later", "o", ev("l"))
		require.Greater(t, next.FirstPosition, res.LastPosition+1)
		after, _, err := s.ReadFeed(ctx, eventstore.Cursor{Position: res.LastPosition + 1}, 100)
		require.NoError(t, err)
		require.Equal(t, []string{"l"}, texts(t, after))
	})
}
