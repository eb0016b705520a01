package sqlite_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
)

func TestFeed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("pages return every event once in position order with per-stream order", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		const writers, per = 8, 25
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := eventstore.StreamID(fmt.Sprintf("w-%d", w))
				for i := range per {
					_, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Any(), Owner: "o", Events: events(fmt.Sprint(i))})
					if err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		var (
			cur  eventstore.Cursor
			seen = map[eventstore.StreamID]int64{}
			last int64
			n    int
		)
		for {
			page, next, err := s.ReadFeed(ctx, cur, 7)
			require.NoError(t, err)
			if len(page) == 0 {
				require.Equal(t, cur, next)
				break
			}
			for _, e := range page {
				require.Greater(t, e.GlobalPosition, last)
				last = e.GlobalPosition
				require.Equal(t, seen[e.StreamID]+1, e.Version, "stream %s in order", e.StreamID)
				seen[e.StreamID] = e.Version
				n++
			}
			require.Equal(t, uint64(0), next.TxID)
			cur = next
		}
		require.Equal(t, writers*per, n)
	})

	t.Run("Notify wakes a reader at the next commit", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		wake := s.Notify()
		select {
		case <-wake:
			t.Fatal("woken before any commit")
		default:
		}
		create(t, s, "a", "o", ev("x"))
		<-wake // closed by the commit; blocks forever (test timeout) otherwise
		require.NotEqual(t, wake, s.Notify(), "a fresh channel waits for the next commit")
	})

	t.Run("cursors are saved per reader and refused from another backend", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		c, err := s.LoadCursor(ctx, "relay")
		require.NoError(t, err)
		require.Equal(t, eventstore.Cursor{}, c)
		require.NoError(t, s.SaveCursor(ctx, "relay", eventstore.Cursor{Position: 7}))
		require.NoError(t, s.SaveCursor(ctx, "relay", eventstore.Cursor{Position: 9}))
		require.NoError(t, s.SaveCursor(ctx, "other", eventstore.Cursor{Position: 2}))
		c, err = s.LoadCursor(ctx, "relay")
		require.NoError(t, err)
		require.Equal(t, eventstore.Cursor{Position: 9}, c)
		require.ErrorIs(t, s.SaveCursor(ctx, "relay", eventstore.Cursor{TxID: 5, Position: 1}), eventstore.ErrInvalid)
		require.ErrorIs(t, s.SaveCursor(ctx, "", eventstore.Cursor{}), eventstore.ErrInvalid)
		_, _, err = s.ReadFeed(ctx, eventstore.Cursor{TxID: 5}, 10)
		require.ErrorIs(t, err, eventstore.ErrInvalid)
		_, _, err = s.ReadFeed(ctx, eventstore.Cursor{}, 0)
		require.ErrorIs(t, err, eventstore.ErrInvalid)
	})
}
