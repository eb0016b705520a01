package upstream

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/testkit"
)

func TestKVPacer(t *testing.T) {
	t.Parallel()

	t.Run("replicas sharing one key never claim two sends closer than the interval", func(t *testing.T) {
		t.Parallel()
		srv, _ := testkit.NATS(t)
		ctx := context.Background()
		const interval = 40 * time.Millisecond
		var pacers []*KVPacer
		for range 3 {
			p, err := NewKVPacer(ctx, connectJS(t, srv), "", "nominatim", interval)
			require.NoError(t, err)
			pacers = append(pacers, p)
		}
		var mu sync.Mutex
		var slots []time.Time
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				slot, err := pacers[i%3].claim(ctx)
				require.NoError(t, err)
				mu.Lock()
				slots = append(slots, slot)
				mu.Unlock()
			})
		}
		wg.Wait()
		slices.SortFunc(slots, func(a, b time.Time) int { return a.Compare(b) })
		require.Len(t, slots, 30)
		for i := 1; i < len(slots); i++ {
			require.GreaterOrEqual(t, slots[i].Sub(slots[i-1]), interval, "slots %d and %d", i-1, i)
		}
	})

	t.Run("Wait returns no earlier than the reserved slot", func(t *testing.T) {
		t.Parallel()
		srv, _ := testkit.NATS(t)
		ctx := context.Background()
		p, err := NewKVPacer(ctx, connectJS(t, srv), "pacer_wait", "osm", 30*time.Millisecond)
		require.NoError(t, err)
		// Measured from before the first Wait: its slot is no earlier than
		// that, and the third slot is two intervals after it. (Measured from
		// after the first Wait returned, the bound lost however long that
		// return took, and a loaded machine failed it by a millisecond.)
		start := time.Now()
		require.NoError(t, p.Wait(ctx))
		require.NoError(t, p.Wait(ctx))
		require.NoError(t, p.Wait(ctx))
		require.GreaterOrEqual(t, time.Since(start), 60*time.Millisecond, "two further slots need two intervals")
	})

	t.Run("a cancelled context stops the wait", func(t *testing.T) {
		t.Parallel()
		srv, _ := testkit.NATS(t)
		p, err := NewKVPacer(context.Background(), connectJS(t, srv), "", "slow", time.Hour)
		require.NoError(t, err)
		require.NoError(t, p.Wait(context.Background()))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		require.ErrorIs(t, p.Wait(ctx), context.Canceled)
	})

	t.Run("bad options are refused", func(t *testing.T) {
		t.Parallel()
		srv, _ := testkit.NATS(t)
		js := connectJS(t, srv)
		_, err := NewKVPacer(context.Background(), js, "", "bad key", time.Second)
		require.ErrorIs(t, err, ErrInvalidOption)
		_, err = NewKVPacer(context.Background(), js, "", "ok", 0)
		require.ErrorIs(t, err, ErrInvalidOption)
		_, err = NewKVPacer(context.Background(), nil, "", "ok", time.Second)
		require.ErrorIs(t, err, ErrInvalidOption)
	})
}

func TestLocalPacer(t *testing.T) {
	t.Parallel()

	t.Run("slots are spaced by the interval", func(t *testing.T) {
		t.Parallel()
		p, err := NewLocalPacer(20 * time.Millisecond)
		require.NoError(t, err)
		start := time.Now()
		for range 4 {
			require.NoError(t, p.Wait(context.Background()))
		}
		require.GreaterOrEqual(t, time.Since(start), 60*time.Millisecond)
	})

	t.Run("a zero interval is refused", func(t *testing.T) {
		t.Parallel()
		_, err := NewLocalPacer(0)
		require.ErrorIs(t, err, ErrInvalidOption)
	})
}
