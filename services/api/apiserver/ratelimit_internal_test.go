package apiserver

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/testkit"
)

func TestRateLimitBucket(t *testing.T) {
	t.Parallel()
	t.Run("counters are kept twice the longest window, and no longer", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 2*time.Minute, DefaultRateLimits().keepFor())
		r := DefaultRateLimits()
		r.Geocode.Window = 15 * time.Minute
		require.Equal(t, 30*time.Minute, r.keepFor())
		require.Equal(t, time.Minute, RateLimits{Create: RateLimit{1, time.Second}}.keepFor(), "at least a minute")
	})
	t.Run("the bucket takes the TTL on start, replacing an older one", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		_, nc := testkit.NATS(t)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		_, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: rateBucket, TTL: 10 * time.Minute, History: 1})
		require.NoError(t, err)
		_, err = newLimiter(ctx, js, DefaultRateLimits(), time.Now, slog.Default())
		require.NoError(t, err)
		kv, err := js.KeyValue(ctx, rateBucket)
		require.NoError(t, err)
		st, err := kv.Status(ctx)
		require.NoError(t, err)
		require.Equal(t, 2*time.Minute, st.TTL())
	})
}
