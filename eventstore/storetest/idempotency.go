package storetest

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
)

func keyed(id eventstore.StreamID, exp eventstore.ExpectedVersion, key string, hash byte, expires time.Time) eventstore.AppendRequest {
	return eventstore.AppendRequest{
		Stream: id, Expected: exp, Owner: "alice", Events: events(2),
		Idempotency: &eventstore.Idempotency{Key: key, RequestHash: []byte{hash, 0xab}, Response: []byte(`{"answer":` + string('0'+hash) + `}`), ExpiresAt: expires},
	}
}

func testIdempotencyConcurrent(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("idem")
	const callers = 20
	var (
		wg      sync.WaitGroup
		results = make([]eventstore.AppendResult, callers)
		errs    = make([]error, callers)
		start   = make(chan struct{})
	)
	expires := time.Now().Add(5 * time.Minute)
	for i := 0; i < callers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			// NoStream: a second execution would be a version conflict, so
			// every caller succeeding proves the replays executed nothing.
			results[i], errs[i] = s.Append(ctx, keyed(id, eventstore.NoStream(), "create-1", 1, expires))
		}()
	}
	close(start)
	wg.Wait()
	executed := 0
	for i := range results {
		require.NoError(t, errs[i], "caller %d", i)
		if !results[i].Replayed {
			executed++
		}
		require.Equal(t, int64(2), results[i].Version)
		require.Equal(t, results[0].FirstPosition, results[i].FirstPosition)
		require.Equal(t, results[0].LastPosition, results[i].LastPosition)
		require.Equal(t, []byte(`{"answer":1}`), results[i].Response)
	}
	require.Equal(t, 1, executed, "exactly one caller executes")
	requireVersion(t, s, id, 2)
}

func testIdempotencyMismatch(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("idem-mismatch")
	expires := time.Now().Add(5 * time.Minute)
	first, err := s.Append(ctx, keyed(id, eventstore.Any(), "k", 1, expires))
	require.NoError(t, err)
	require.False(t, first.Replayed)
	_, err = s.Append(ctx, keyed(id, eventstore.Any(), "k", 2, expires))
	require.ErrorIs(t, err, eventstore.ErrIdempotencyMismatch)
	requireVersion(t, s, id, 2)
	again, err := s.Append(ctx, keyed(id, eventstore.Any(), "k", 1, expires))
	require.NoError(t, err)
	require.True(t, again.Replayed)
	require.Equal(t, first.Version, again.Version)
	requireVersion(t, s, id, 2)

	// A failed append records no key: the retry executes.
	other := newStreamID("idem-fail")
	_, err = s.Append(ctx, keyed(other, eventstore.Exact(3), "k2", 1, expires))
	require.ErrorIs(t, err, eventstore.ErrVersionConflict)
	res, err := s.Append(ctx, keyed(other, eventstore.NoStream(), "k2", 1, expires))
	require.NoError(t, err)
	require.False(t, res.Replayed)
	requireVersion(t, s, other, 2)
}

func testIdempotencyExpired(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("idem-expired")
	past := time.Now().Add(-time.Second)
	first, err := s.Append(ctx, keyed(id, eventstore.Any(), "old", 1, past))
	require.NoError(t, err)
	require.False(t, first.Replayed)
	second, err := s.Append(ctx, keyed(id, eventstore.Any(), "old", 1, time.Now().Add(5*time.Minute)))
	require.NoError(t, err)
	require.False(t, second.Replayed, "an expired key must run again")
	require.Equal(t, int64(4), second.Version)
	third, err := s.Append(ctx, keyed(id, eventstore.Any(), "old", 1, time.Now().Add(5*time.Minute)))
	require.NoError(t, err)
	require.True(t, third.Replayed, "the renewed key replays")
	require.Equal(t, int64(4), third.Version)
	requireVersion(t, s, id, 4)
}

func testIdempotencyLookup(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("idem-lookup")
	expires := time.Now().Add(5 * time.Minute)

	_, err := s.LookupIdempotency(ctx, "unknown", []byte{1})
	require.ErrorIs(t, err, eventstore.ErrNotFound, "an unknown key is a miss")
	_, err = s.Stream(ctx, id)
	require.ErrorIs(t, err, eventstore.ErrNotFound, "a lookup writes nothing")

	first, err := s.Append(ctx, keyed(id, eventstore.NoStream(), "look", 1, expires))
	require.NoError(t, err)
	got, err := s.LookupIdempotency(ctx, "look", []byte{1, 0xab})
	require.NoError(t, err)
	require.True(t, got.Replayed)
	require.Equal(t, first.Version, got.Version)
	require.Equal(t, first.FirstPosition, got.FirstPosition)
	require.Equal(t, first.LastPosition, got.LastPosition)
	require.Equal(t, []byte(`{"answer":1}`), got.Response, "the first call's response, verbatim")

	_, err = s.LookupIdempotency(ctx, "look", []byte{2, 0xab})
	require.ErrorIs(t, err, eventstore.ErrIdempotencyMismatch, "the key with another request")

	// A failed append records no key; an expired key is a miss.
	_, err = s.Append(ctx, keyed(newStreamID("idem-lookup-fail"), eventstore.Exact(3), "failed", 1, expires))
	require.ErrorIs(t, err, eventstore.ErrVersionConflict)
	_, err = s.LookupIdempotency(ctx, "failed", []byte{1, 0xab})
	require.ErrorIs(t, err, eventstore.ErrNotFound)
	_, err = s.Append(ctx, keyed(newStreamID("idem-lookup-old"), eventstore.NoStream(), "old", 1, time.Now().Add(-time.Second)))
	require.NoError(t, err)
	_, err = s.LookupIdempotency(ctx, "old", []byte{1, 0xab})
	require.ErrorIs(t, err, eventstore.ErrNotFound, "an expired key is a miss")
	requireVersion(t, s, id, 2)

	for _, bad := range []struct {
		key   string
		hash  []byte
		field string
	}{{"", []byte{1}, "idempotency key"}, {strings.Repeat("k", eventstore.MaxIdempotencyKeyLength+1), []byte{1}, "idempotency key"}, {"k", nil, "idempotency request hash"}} {
		_, err := s.LookupIdempotency(ctx, bad.key, bad.hash)
		var ie *eventstore.InvalidError
		require.ErrorAs(t, err, &ie)
		require.Equal(t, bad.field, ie.Field)
	}
}
