package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/sqlite"
)

func TestOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("data survives Close and reopen, and Migrate is idempotent", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "events.db")
		s, err := sqlite.Open(ctx, path)
		require.NoError(t, err)
		require.NoError(t, s.Migrate(ctx))
		res := create(t, s, "trip-1", "alice", ev("a"), ev("b"))
		require.NoError(t, s.SaveCursor(ctx, "relay", eventstore.Cursor{Position: res.LastPosition}))
		require.NoError(t, s.PutBlob(ctx, []byte{9}, []byte("pts")))
		s.Close()
		s.Close() // harmless twice

		s, err = sqlite.Open(ctx, path)
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, s.Migrate(ctx))
		got, err := s.ReadStream(ctx, "trip-1", 0, 0)
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b"}, texts(t, got))
		c, err := s.LoadCursor(ctx, "relay")
		require.NoError(t, err)
		require.Equal(t, res.LastPosition, c.Position)
		blob, err := s.Blob(ctx, []byte{9})
		require.NoError(t, err)
		require.Equal(t, []byte("pts"), blob)
		next, err := s.Append(ctx, eventstore.AppendRequest{Stream: "trip-1", Expected: eventstore.Exact(2), Events: events("c")})
		require.NoError(t, err)
		require.Equal(t, res.LastPosition+1, next.FirstPosition)
	})

	t.Run("paths the store cannot share between its connections are refused", func(t *testing.T) {
		t.Parallel()
		for _, p := range []string{"", ":memory:", "file:x.db", filepath.Join(t.TempDir(), "a?b")} {
			_, err := sqlite.Open(ctx, p)
			var ie *eventstore.InvalidError
			require.ErrorAs(t, err, &ie, "path %q", p)
			require.Equal(t, "path", ie.Field)
		}
	})

	t.Run("a store used before Migrate fails rather than guessing", func(t *testing.T) {
		t.Parallel()
		s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "raw.db"))
		require.NoError(t, err)
		defer s.Close()
		_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "a", Expected: eventstore.NoStream(), Owner: "o", Events: events("x")})
		require.ErrorContains(t, err, "no such table")
	})
}
