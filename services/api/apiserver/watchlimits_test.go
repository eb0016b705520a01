package apiserver_test

import (
	"context"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/services/api/apiserver"
)

func TestWatchLimits(t *testing.T) {
	t.Parallel()
	const lifetime = 3 * time.Second
	h := newHarness(t, func(c *apiserver.Config) {
		c.WatchPerUser = 2
		c.WatchLifetime = lifetime
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ann := h.as(t, "watch-ann", nil)
	created := upload(t, ann.trips)
	open := func(c clients) (*connect.ServerStreamForClient[roadbookv1.WatchTripResponse], error) {
		s, err := c.watching.WatchTrip(ctx, connect.NewRequest(&roadbookv1.WatchTripRequest{TripId: created.TripId}))
		if err != nil {
			return nil, err
		}
		if !s.Receive() {
			return s, s.Err()
		}
		return s, nil
	}

	start := time.Now()
	first, err := open(ann)
	require.NoError(t, err)
	_, err = open(ann)
	require.NoError(t, err)

	t.Run("a user's stream beyond the cap is refused with a retry delay", func(t *testing.T) {
		_, err := open(ann)
		require.Equal(t, connect.CodeResourceExhausted, connect.CodeOf(err), "%v", err)
		require.Equal(t, roadbookv1.Code_CODE_RATE_LIMITED, errorInfo(t, err).Code)
	})

	t.Run("the cap is per user", func(t *testing.T) {
		bob := h.as(t, "watch-bob", nil)
		own := upload(t, bob.trips)
		s, err := bob.watching.WatchTrip(ctx, connect.NewRequest(&roadbookv1.WatchTripRequest{TripId: own.TripId}))
		require.NoError(t, err)
		require.True(t, s.Receive(), "bob's stream opens while ann is at her cap: %v", s.Err())
		require.NoError(t, s.Close())
	})

	t.Run("a stream ends cleanly at its lifetime and the slot comes back", func(t *testing.T) {
		require.False(t, first.Receive(), "nothing changed, so the next thing the stream does is end")
		require.NoError(t, first.Err(), "the end of a lifetime is not an error: the client reconnects")
		require.GreaterOrEqual(t, time.Since(start), lifetime-500*time.Millisecond)
		require.Eventually(t, func() bool {
			s, err := open(ann)
			if err == nil {
				require.NoError(t, s.Close())
			}
			return err == nil
		}, 10*time.Second, 50*time.Millisecond, "a reconnect after the lifetime is accepted")
	})
}
