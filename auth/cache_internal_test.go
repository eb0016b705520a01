package auth

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestVerifiedCacheEviction(t *testing.T) {
	t.Parallel()
	t.Run("a token in use stays cached while the cache fills with others", func(t *testing.T) {
		t.Parallel()
		var c verifiedCache
		now := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
		hot := Principal{UserID: "busy-agent"}
		c.put("hot-token", hot, now, time.Time{})
		for i := range verifiedCacheSize + 10 {
			c.put(fmt.Sprintf("token-%d", i), Principal{UserID: "u"}, now, time.Time{})
			_, ok := c.get("hot-token", now)
			require.True(t, ok, "the busy caller's token after %d others", i+1)
		}
		p, ok := c.get("hot-token", now)
		require.True(t, ok)
		require.Equal(t, hot, p)
		_, ok = c.get("token-0", now)
		require.False(t, ok, "the least recently used token went")
		require.Equal(t, verifiedCacheSize, c.lru().Len(), "the cache stays bounded")
	})
}
