package eventstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
)

func TestBroadcast(t *testing.T) {
	t.Parallel()

	t.Run("a signal wakes every holder of the channel once, and the next channel waits for the next signal", func(t *testing.T) {
		t.Parallel()
		var b eventstore.Broadcast // the zero value is ready
		first, again := b.Notify(), b.Notify()
		require.Equal(t, first, again, "one channel until the next signal")
		b.Signal()
		requireClosed(t, first)
		next := b.Notify()
		require.NotEqual(t, first, next)
		select {
		case <-next:
			t.Fatal("the next channel closed before the next signal")
		default:
		}
		b.Signal()
		requireClosed(t, next)
	})

	t.Run("a signal wakes only those who held the channel: one asked for after it waits for the next", func(t *testing.T) {
		t.Parallel()
		var b eventstore.Broadcast
		b.Signal()
		ch := b.Notify()
		select {
		case <-ch:
			t.Fatal("a channel handed out after the signal is already closed")
		default:
		}
	})

	t.Run("a channel asked for since a generation is closed when a signal came after it, and otherwise waits for the next", func(t *testing.T) {
		t.Parallel()
		var b eventstore.Broadcast
		g := b.Generation()
		quiet := b.NotifySince(g)
		select {
		case <-quiet:
			t.Fatal("no signal came, yet the channel is closed")
		default:
		}
		require.Equal(t, b.Notify(), quiet, "the channel the next signal closes")
		b.Signal()
		require.Equal(t, g+1, b.Generation())
		requireClosed(t, quiet)
		requireClosed(t, b.NotifySince(g))
	})
}

func requireClosed(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	default:
		t.Fatal("the channel is still open")
	}
}
