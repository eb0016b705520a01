package storetest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
)

func testListStreams(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	mine := map[eventstore.StreamID]bool{}
	for i := 0; i < 7; i++ {
		id := newStreamID(fmt.Sprintf("list%d", i))
		status := "draft"
		if i%2 == 0 {
			status = "ready"
		}
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.NoStream(), Owner: "alice", Events: events(1),
			Summary: &eventstore.Summary{Title: fmt.Sprintf("trip %d", i), Status: status, Data: []byte(fmt.Sprintf(`{"km": %d, "country": "%s"}`, i*100, map[bool]string{true: "FR", false: "IT"}[i < 3]))}})
		require.NoError(t, err)
		mine[id] = true
	}
	for i := 0; i < 2; i++ {
		create(t, s, newStreamID("theirs"), "bob", 1)
	}

	var (
		all   []eventstore.StreamInfo
		after *eventstore.ListPosition
		pages int
	)
	for {
		page, err := s.ListStreams(ctx, eventstore.ListQuery{Owner: "alice", Limit: 3, After: after})
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Streams), 3)
		all = append(all, page.Streams...)
		pages++
		if page.Next == nil {
			break
		}
		after = page.Next
		require.Less(t, pages, 10, "pagination does not end")
	}
	require.Equal(t, 3, pages)
	require.Len(t, all, 7)
	seen := map[eventstore.StreamID]bool{}
	for i, info := range all {
		require.True(t, mine[info.ID], "%s is not alice's", info.ID)
		require.False(t, seen[info.ID], "%s listed twice", info.ID)
		seen[info.ID] = true
		require.Equal(t, "alice", info.Owner)
		if i > 0 {
			prev := all[i-1]
			newer := prev.CreatedAt.After(info.CreatedAt) || prev.CreatedAt.Equal(info.CreatedAt) && prev.ID > info.ID
			require.True(t, newer, "newest first: %s then %s", prev.ID, info.ID)
		}
	}

	ready, err := s.ListStreams(ctx, eventstore.ListQuery{Owner: "alice", Status: "ready"})
	require.NoError(t, err)
	require.Len(t, ready.Streams, 4)
	for _, info := range ready.Streams {
		require.Equal(t, "ready", info.Summary.Status)
	}
	require.Nil(t, ready.Next)

	fr, err := s.ListStreams(ctx, eventstore.ListQuery{Owner: "alice", Match: []byte(`{"country": "FR"}`)})
	require.NoError(t, err)
	require.Len(t, fr.Streams, 3)
	frReady, err := s.ListStreams(ctx, eventstore.ListQuery{Owner: "alice", Status: "ready", Match: []byte(`{"country": "FR"}`)})
	require.NoError(t, err)
	require.Len(t, frReady.Streams, 2)

	none, err := s.ListStreams(ctx, eventstore.ListQuery{Owner: "carol"})
	require.NoError(t, err)
	require.Empty(t, none.Streams)
	require.Nil(t, none.Next)
}

func testSnapshots(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("snap")
	create(t, s, id, "alice", 5)

	_, err := s.LoadSnapshot(ctx, id, 1)
	require.ErrorIs(t, err, eventstore.ErrNotFound)
	require.NoError(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: id, Version: 4, SchemaVersion: 1, Data: []byte("state@4")}))
	snap, err := s.LoadSnapshot(ctx, id, 1)
	require.NoError(t, err)
	require.Equal(t, eventstore.Snapshot{Stream: id, Version: 4, SchemaVersion: 1, Data: []byte("state@4")}, snap)

	// Another schema version does not see it: the caller folds from events.
	_, err = s.LoadSnapshot(ctx, id, 2)
	require.ErrorIs(t, err, eventstore.ErrNotFound)

	// An older snapshot never replaces a newer one.
	require.NoError(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: id, Version: 2, SchemaVersion: 1, Data: []byte("state@2")}))
	snap, err = s.LoadSnapshot(ctx, id, 1)
	require.NoError(t, err)
	require.Equal(t, int64(4), snap.Version)
	require.NoError(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: id, Version: 5, SchemaVersion: 1, Data: []byte("state@5")}))
	snap, err = s.LoadSnapshot(ctx, id, 1)
	require.NoError(t, err)
	require.Equal(t, []byte("state@5"), snap.Data)

	// Reading "via snapshot": the tail after it.
	tail, err := s.ReadStream(ctx, id, 4, 0)
	require.NoError(t, err)
	require.Len(t, tail, 1)

	err = s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: id, Version: 9, SchemaVersion: 1, Data: []byte("x")})
	require.ErrorIs(t, err, eventstore.ErrInvalid, "a snapshot beyond the stream's version")
	err = s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: newStreamID("nosuch"), Version: 1, SchemaVersion: 1, Data: []byte("x")})
	require.ErrorIs(t, err, eventstore.ErrNotFound)
	err = s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: id, Version: 1, SchemaVersion: 0, Data: []byte("x")})
	require.ErrorIs(t, err, eventstore.ErrInvalid)
}

func testBlobs(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	data := bytes.Repeat([]byte{1, 2, 3, 250}, 10000)
	hash := sha256.Sum256(data)
	_, err := s.Blob(ctx, hash[:])
	require.ErrorIs(t, err, eventstore.ErrNotFound)
	require.NoError(t, s.PutBlob(ctx, hash[:], data))
	require.NoError(t, s.PutBlob(ctx, hash[:], data), "storing a hash again is a no-op")
	got, err := s.Blob(ctx, hash[:])
	require.NoError(t, err)
	require.Equal(t, data, got)
	_, err = s.Blob(ctx, make([]byte, eventstore.MaxBlobHashLength+1))
	require.ErrorIs(t, err, eventstore.ErrInvalid)
}

func testDelete(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("del")
	keep := newStreamID("keep")
	blob := []byte("route points")
	hash := sha256.Sum256(blob)
	require.NoError(t, s.PutBlob(ctx, hash[:], blob))
	_, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.NoStream(), Owner: "alice", Events: events(10), BlobRefs: [][]byte{hash[:]},
		Summary: &eventstore.Summary{Title: "gone", Status: "ready"}})
	require.NoError(t, err)
	for v := int64(10); v < 40; v += 10 {
		_, err = s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(v), Events: events(10)})
		require.NoError(t, err)
	}
	require.NoError(t, s.SaveSnapshot(ctx, eventstore.Snapshot{Stream: id, Version: 40, SchemaVersion: 1, Data: []byte("s")}))
	create(t, s, keep, "alice", 2)

	require.NoError(t, s.DeleteStream(ctx, id))

	_, err = s.Stream(ctx, id)
	require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
	_, err = s.ReadStream(ctx, id, 0, 0)
	require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
	_, err = s.LoadSnapshot(ctx, id, 1)
	require.ErrorIs(t, err, eventstore.ErrNotFound)
	page, err := s.ListStreams(ctx, eventstore.ListQuery{Owner: "alice"})
	require.NoError(t, err)
	require.Len(t, page.Streams, 1)
	require.Equal(t, keep, page.Streams[0].ID)
	for _, exp := range []eventstore.ExpectedVersion{eventstore.NoStream(), eventstore.Any(), eventstore.Exact(40), eventstore.StreamExists()} {
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: exp, Owner: "alice", Events: events(1)})
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted, "append %s to a deleted stream", exp)
	}
	require.NoError(t, s.DeleteStream(ctx, id), "deleting again is idempotent")
	require.ErrorIs(t, s.DeleteStream(ctx, newStreamID("never")), eventstore.ErrNotFound)
	requireVersion(t, s, keep, 2)

	// The blob lost its only reference: housekeeping collects it once old.
	rep, err := s.Housekeep(ctx, time.Now().Add(48*time.Hour))
	require.NoError(t, err)
	require.Equal(t, 1, rep.Blobs)
	_, err = s.Blob(ctx, hash[:])
	require.ErrorIs(t, err, eventstore.ErrNotFound)
}

func testHousekeeping(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	now := time.Now()
	for i, exp := range []time.Time{now.Add(-time.Minute), now.Add(-time.Second), now.Add(5 * time.Minute)} {
		_, err := s.Append(ctx, keyed(newStreamID("hk"), eventstore.NoStream(), fmt.Sprintf("hk-%d", i), 1, exp))
		require.NoError(t, err)
	}
	used, unused := []byte("used"), []byte("unused")
	hu, hn := sha256.Sum256(used), sha256.Sum256(unused)
	require.NoError(t, s.PutBlob(ctx, hu[:], used))
	require.NoError(t, s.PutBlob(ctx, hn[:], unused))
	_, err := s.Append(ctx, eventstore.AppendRequest{Stream: newStreamID("hk-ref"), Expected: eventstore.NoStream(), Owner: "alice", Events: events(1), BlobRefs: [][]byte{hu[:]}})
	require.NoError(t, err)

	// Now: two keys expired; the unused blob is within its grace period.
	rep, err := s.Housekeep(ctx, now)
	require.NoError(t, err)
	require.Equal(t, eventstore.HousekeepingReport{IdempotencyKeys: 2}, rep)
	_, err = s.Blob(ctx, hn[:])
	require.NoError(t, err)

	// Two days on: the last key expired, the unused blob is collected, the
	// referenced one stays.
	rep, err = s.Housekeep(ctx, now.Add(48*time.Hour))
	require.NoError(t, err)
	require.Equal(t, eventstore.HousekeepingReport{IdempotencyKeys: 1, Blobs: 1}, rep)
	_, err = s.Blob(ctx, hn[:])
	require.ErrorIs(t, err, eventstore.ErrNotFound)
	got, err := s.Blob(ctx, hu[:])
	require.NoError(t, err)
	require.Equal(t, used, got)

	rep, err = s.Housekeep(ctx, now.Add(48*time.Hour))
	require.NoError(t, err)
	require.Equal(t, eventstore.HousekeepingReport{}, rep, "nothing left to remove")
}
