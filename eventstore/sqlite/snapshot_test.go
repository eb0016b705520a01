package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/sqlite"
)

func TestSnapshotsAndBlobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the newest snapshot per schema version is kept", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		create(t, s, "a", "o", ev("1"), ev("2"), ev("3"))
		_, err := s.LoadSnapshot(ctx, "a", 1)
		require.ErrorIs(t, err, eventstore.ErrNotFound)
		require.NoError(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: "a", Version: 2, SchemaVersion: 1, Data: []byte("v2")}))
		require.NoError(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: "a", Version: 3, SchemaVersion: 2, Data: []byte("new schema")}))
		require.NoError(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: "a", Version: 1, SchemaVersion: 1, Data: []byte("stale")}))
		got, err := s.LoadSnapshot(ctx, "a", 1)
		require.NoError(t, err)
		require.Equal(t, eventstore.Snapshot{Stream: "a", Version: 2, SchemaVersion: 1, Data: []byte("v2")}, got)
		got, err = s.LoadSnapshot(ctx, "a", 2)
		require.NoError(t, err)
		require.Equal(t, []byte("new schema"), got.Data)
		require.ErrorIs(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: "a", Version: 4, SchemaVersion: 1, Data: []byte("x")}), eventstore.ErrInvalid)
		require.ErrorIs(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: "nope", Version: 1, SchemaVersion: 1, Data: []byte("x")}), eventstore.ErrNotFound)
	})

	t.Run("blobs are stored once and collected when unreferenced past the grace period", func(t *testing.T) {
		t.Parallel()
		c := newClock()
		s := openStore(t, sqlite.WithClock(c.Now), sqlite.WithBlobGrace(time.Hour))
		used, loose, young := []byte{1, 1}, []byte{2, 2}, []byte{3, 3}
		require.NoError(t, s.PutBlob(ctx, used, []byte("route")))
		require.NoError(t, s.PutBlob(ctx, used, []byte("ignored: same hash")))
		require.NoError(t, s.PutBlob(ctx, loose, []byte("orphan")))
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: "t", Expected: eventstore.NoStream(), Owner: "o", Events: events("x"), BlobRefs: [][]byte{used}})
		require.NoError(t, err)
		c.Advance(2 * time.Hour)
		require.NoError(t, s.PutBlob(ctx, young, []byte("about to be referenced")))

		rep, err := s.Housekeep(ctx, c.Now())
		require.NoError(t, err)
		require.Equal(t, eventstore.HousekeepingReport{Blobs: 1}, rep)
		data, err := s.Blob(ctx, used)
		require.NoError(t, err)
		require.Equal(t, []byte("route"), data)
		_, err = s.Blob(ctx, loose)
		require.ErrorIs(t, err, eventstore.ErrNotFound)
		_, err = s.Blob(ctx, young)
		require.NoError(t, err, "a blob younger than the grace period stays")

		// Deleting the stream drops its reference; the next pass collects it.
		require.NoError(t, s.DeleteStream(ctx, "t"))
		rep, err = s.Housekeep(ctx, c.Now())
		require.NoError(t, err)
		require.Equal(t, 1, rep.Blobs)
		_, err = s.Blob(ctx, used)
		require.ErrorIs(t, err, eventstore.ErrNotFound)
	})
}
