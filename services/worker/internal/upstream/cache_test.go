package upstream

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/testkit"
)

func TestLRUCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("evicts the least recently used entry", func(t *testing.T) {
		t.Parallel()
		c, err := NewLRUCache(2, time.Hour)
		require.NoError(t, err)
		require.NoError(t, c.Put(ctx, "a", []byte("1")))
		require.NoError(t, c.Put(ctx, "b", []byte("2")))
		_, ok, _ := c.Get(ctx, "a")
		require.True(t, ok)
		require.NoError(t, c.Put(ctx, "c", []byte("3")))
		_, ok, _ = c.Get(ctx, "b")
		require.False(t, ok, "b was least recently used")
		v, ok, _ := c.Get(ctx, "a")
		require.True(t, ok)
		require.Equal(t, "1", string(v))
	})

	t.Run("expires entries after the TTL", func(t *testing.T) {
		t.Parallel()
		c, err := NewLRUCache(10, 24*time.Hour)
		require.NoError(t, err)
		now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		c.now = func() time.Time { return now }
		require.NoError(t, c.Put(ctx, "k", []byte("v")))
		now = now.Add(24*time.Hour - time.Second)
		_, ok, _ := c.Get(ctx, "k")
		require.True(t, ok)
		now = now.Add(time.Second)
		_, ok, _ = c.Get(ctx, "k")
		require.False(t, ok)
		require.Equal(t, 0, c.Len())
	})

	t.Run("bad sizes are refused", func(t *testing.T) {
		t.Parallel()
		_, err := NewLRUCache(0, time.Hour)
		require.ErrorIs(t, err, ErrInvalidOption)
		_, err = NewLRUCache(1, 0)
		require.ErrorIs(t, err, ErrInvalidOption)
	})
}

func TestKVCache(t *testing.T) {
	t.Parallel()

	t.Run("an entry written by one replica is read by another", func(t *testing.T) {
		t.Parallel()
		srv, _ := testkit.NATS(t)
		ctx := context.Background()
		a, err := NewKVCache(ctx, connectJS(t, srv), "geocode_cache", 24*time.Hour, 0)
		require.NoError(t, err)
		b, err := NewKVCache(ctx, connectJS(t, srv), "geocode_cache", 24*time.Hour, 0)
		require.NoError(t, err)
		key := "GET https://nominatim.example/search?q=Hamburg&format=jsonv2"
		_, ok, err := b.Get(ctx, key)
		require.NoError(t, err)
		require.False(t, ok)
		require.NoError(t, a.Put(ctx, key, []byte(`[{"name":"Hamburg"}]`)))
		v, ok, err := b.Get(ctx, key)
		require.NoError(t, err)
		require.True(t, ok)
		require.JSONEq(t, `[{"name":"Hamburg"}]`, string(v))
	})

	t.Run("the bucket expires entries after its TTL", func(t *testing.T) {
		t.Parallel()
		srv, _ := testkit.NATS(t)
		ctx := context.Background()
		c, err := NewKVCache(ctx, connectJS(t, srv), "short_cache", 200*time.Millisecond, 0)
		require.NoError(t, err)
		require.NoError(t, c.Put(ctx, "k", []byte("v")))
		require.Eventually(t, func() bool {
			_, ok, err := c.Get(ctx, "k")
			return err == nil && !ok
		}, 5*time.Second, 50*time.Millisecond)
	})
}
