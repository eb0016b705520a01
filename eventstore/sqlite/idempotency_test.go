package sqlite_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/sqlite"
)

func TestIdempotency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	keyed := func(c *clock, key, hash, response string, ttl time.Duration) eventstore.AppendRequest {
		return eventstore.AppendRequest{
			Stream: "s", Expected: eventstore.Any(), Owner: "o", Events: events(key),
			Idempotency: &eventstore.Idempotency{Key: key, RequestHash: []byte(hash), Response: []byte(response), ExpiresAt: c.Now().Add(ttl)},
		}
	}

	t.Run("20 concurrent callers with one key execute once and get the same answer", func(t *testing.T) {
		t.Parallel()
		c := newClock()
		s := openStore(t, sqlite.WithClock(c.Now))
		results := make([]eventstore.AppendResult, 20)
		errs := make([]error, 20)
		var wg sync.WaitGroup
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = s.Append(ctx, keyed(c, "k1", "h", "answer", 5*time.Minute))
			}()
		}
		wg.Wait()
		replayed := 0
		for i, err := range errs {
			require.NoError(t, err)
			if results[i].Replayed {
				replayed++
			}
			got := results[i]
			got.Replayed = false
			require.Equal(t, eventstore.AppendResult{Version: 1, FirstPosition: 1, LastPosition: 1, Response: []byte("answer")}, got)
		}
		require.Equal(t, 19, replayed)
		all, err := s.ReadStream(ctx, "s", 0, 0)
		require.NoError(t, err)
		require.Len(t, all, 1, "the append executed exactly once")
	})

	t.Run("the same key with a different request is a mismatch", func(t *testing.T) {
		t.Parallel()
		c := newClock()
		s := openStore(t, sqlite.WithClock(c.Now))
		_, err := s.Append(ctx, keyed(c, "k", "h1", "a", time.Minute))
		require.NoError(t, err)
		_, err = s.Append(ctx, keyed(c, "k", "h2", "b", time.Minute))
		require.ErrorIs(t, err, eventstore.ErrIdempotencyMismatch)
		info, err := s.Stream(ctx, "s")
		require.NoError(t, err)
		require.Equal(t, int64(1), info.Version)
	})

	t.Run("an expired key runs again and is then replayed with the new answer", func(t *testing.T) {
		t.Parallel()
		c := newClock()
		s := openStore(t, sqlite.WithClock(c.Now))
		first, err := s.Append(ctx, keyed(c, "k", "h1", "a", time.Minute))
		require.NoError(t, err)
		c.Advance(time.Minute)
		second, err := s.Append(ctx, keyed(c, "k", "h2", "b", time.Minute))
		require.NoError(t, err)
		require.False(t, second.Replayed)
		require.Equal(t, first.Version+1, second.Version)
		again, err := s.Append(ctx, keyed(c, "k", "h2", "ignored", time.Minute))
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, []byte("b"), again.Response)
		require.Equal(t, second.Version, again.Version)
	})

	t.Run("a failed append records no key, so its retry runs", func(t *testing.T) {
		t.Parallel()
		c := newClock()
		s := openStore(t, sqlite.WithClock(c.Now))
		req := keyed(c, "k", "h", "a", time.Minute)
		req.Expected = eventstore.Exact(3)
		_, err := s.Append(ctx, req)
		require.ErrorIs(t, err, eventstore.ErrVersionConflict)
		req.Expected = eventstore.NoStream()
		res, err := s.Append(ctx, req)
		require.NoError(t, err)
		require.False(t, res.Replayed)
	})

	t.Run("housekeeping removes expired keys only", func(t *testing.T) {
		t.Parallel()
		c := newClock()
		s := openStore(t, sqlite.WithClock(c.Now))
		_, err := s.Append(ctx, keyed(c, "short", "h", "a", time.Minute))
		require.NoError(t, err)
		_, err = s.Append(ctx, keyed(c, "long", "h", "a", time.Hour))
		require.NoError(t, err)
		rep, err := s.Housekeep(ctx, c.Now().Add(2*time.Minute))
		require.NoError(t, err)
		require.Equal(t, 1, rep.IdempotencyKeys)
		res, err := s.Append(ctx, keyed(c, "long", "h", "x", time.Hour))
		require.NoError(t, err)
		require.True(t, res.Replayed, "the unexpired key survived housekeeping")
	})
}
