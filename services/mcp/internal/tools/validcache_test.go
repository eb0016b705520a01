package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidCache(t *testing.T) {
	t.Parallel()
	t.Run("accepted short arguments are remembered, byte for byte", func(t *testing.T) {
		t.Parallel()
		var c validCache
		args := []byte(`{"tripId":"0b0e6c1a-7d55-4a8e-9d0c-3f1c2b4a5e6f"}`)
		require.False(t, c.has(args))
		c.add(args)
		require.True(t, c.has(args))
		require.False(t, c.has([]byte(`{"tripId":"0b0e6c1a-7d55-4a8e-9d0c-3f1c2b4a5e6e"}`)), "other bytes are judged afresh")
	})
	t.Run("long arguments are never remembered", func(t *testing.T) {
		t.Parallel()
		var c validCache
		long := []byte(`{"gpx":"` + strings.Repeat("x", validCacheMaxArgBytes) + `"}`)
		c.add(long)
		require.False(t, c.has(long))
	})
	t.Run("a polled argument stays remembered while the set fills with others", func(t *testing.T) {
		t.Parallel()
		var c validCache
		hot := []byte(`{"tripId":"polled"}`)
		c.add(hot)
		for i := range validCacheSize + 10 {
			c.add([]byte(fmt.Sprintf(`{"tripId":"%d"}`, i)))
			require.True(t, c.has(hot), "the polled argument after %d others", i+1)
		}
		require.False(t, c.has([]byte(`{"tripId":"0"}`)), "the least recently seen went")
		require.Equal(t, validCacheSize, c.lru().Len(), "the set stays bounded")
	})
	t.Run("a tool built without a cache validates every time", func(t *testing.T) {
		t.Parallel()
		var c *validCache
		c.add([]byte(`{}`))
		require.False(t, c.has([]byte(`{}`)))
	})
}
