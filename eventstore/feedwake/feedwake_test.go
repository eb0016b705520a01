package feedwake_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/feedwake"
	"github.com/roadbook/roadbook/eventstore/sqlite"
)

// rig is a real store whose commits are announced, and a NATS server with
// one connection per "process".
type rig struct {
	store *sqlite.Store
	url   string
}

func newRig(t *testing.T) rig {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go ns.Start()
	t.Cleanup(ns.Shutdown)
	require.True(t, ns.ReadyForConnections(10*time.Second), "embedded nats-server did not start")
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "events.db"))
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.NoError(t, s.Migrate(context.Background()))
	return rig{store: s, url: ns.ClientURL()}
}

func (g rig) conn(t *testing.T) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(g.url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// announce starts an announcer of the store's commits on nc until the test
// ends.
func (g rig) announce(t *testing.T, nc *nats.Conn, opts ...feedwake.Option) *feedwake.Announcer {
	t.Helper()
	a, err := feedwake.NewAnnouncer(nc, g.store, opts...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return a
}

func (g rig) listen(t *testing.T, nc *nats.Conn, ignore string) *feedwake.Listener {
	t.Helper()
	l, err := feedwake.Listen(nc, ignore)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	require.NoError(t, nc.Flush()) // the subscription is in place before any append
	return l
}

func (g rig) appendOne(t *testing.T, stream string) {
	t.Helper()
	_, err := g.store.Append(context.Background(), eventstore.AppendRequest{Stream: eventstore.StreamID(stream),
		Expected: eventstore.Any(), Owner: "rider", Events: []eventstore.NewEvent{{Payload: wrapperspb.String("x")}}})
	require.NoError(t, err)
}

func closedWithin(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

func TestFeedwake(t *testing.T) {
	t.Parallel()

	t.Run("every commit through the store wakes a listener in another process", func(t *testing.T) {
		t.Parallel()
		g := newRig(t)
		a := g.announce(t, g.conn(t))
		l := g.listen(t, g.conn(t), a.Origin()+"-not") // another process: another origin
		for i := range 20 {
			wake := l.Notify()
			g.appendOne(t, fmt.Sprintf("trip-%d", i))
			require.True(t, closedWithin(wake, 5*time.Second), "commit %d was not announced", i)
		}
		// The listener can be woken before Run counts the publish that woke
		// it, so the count is awaited. Each commit was waited for before the
		// next, so none was coalesced: exactly one announcement per commit.
		require.Eventually(t, func() bool { return a.Sent() == 20 }, 5*time.Second, time.Millisecond,
			"the announcements counted never reached one per commit")
		require.Zero(t, a.Failed())
	})

	t.Run("a listener leaves out its own process's announcements, which its store already told it", func(t *testing.T) {
		t.Parallel()
		g := newRig(t)
		nc := g.conn(t)
		a := g.announce(t, nc)
		own := g.listen(t, nc, a.Origin())
		other := g.listen(t, nc, "")
		ownWake, otherWake := own.Notify(), other.Notify()
		g.appendOne(t, "trip-1")
		require.True(t, closedWithin(otherWake, 5*time.Second), "the announcement never arrived")
		require.NoError(t, nc.Flush())
		require.False(t, closedWithin(ownWake, 200*time.Millisecond), "the listener was woken by its own origin's announcement")
	})

	t.Run("an announcer with nothing committed announces nothing", func(t *testing.T) {
		t.Parallel()
		g := newRig(t)
		nc := g.conn(t)
		a := g.announce(t, nc)
		l := g.listen(t, g.conn(t), "")
		require.False(t, closedWithin(l.Notify(), 200*time.Millisecond))
		require.Zero(t, a.Sent())
	})

	t.Run("an announcer whose connection closed counts its announcements as failed and keeps running", func(t *testing.T) {
		t.Parallel()
		g := newRig(t)
		nc := g.conn(t)
		a := g.announce(t, nc)
		nc.Close()
		g.appendOne(t, "trip-1")
		require.Eventually(t, func() bool { return a.Failed() == 1 }, 5*time.Second, time.Millisecond)
		g.appendOne(t, "trip-2")
		require.Eventually(t, func() bool { return a.Failed() == 2 }, 5*time.Second, time.Millisecond)
		require.Zero(t, a.Sent())
	})

	t.Run("an announcer told to skip announces nothing while it is told so, and again after", func(t *testing.T) {
		t.Parallel()
		g := newRig(t)
		var active atomic.Bool
		active.Store(true)
		a := g.announce(t, g.conn(t), feedwake.SkipWhile(active.Load))
		l := g.listen(t, g.conn(t), "")
		wake := l.Notify()
		g.appendOne(t, "trip-1")
		require.Eventually(t, func() bool { return a.Skipped() == 1 }, 5*time.Second, time.Millisecond)
		require.False(t, closedWithin(wake, 200*time.Millisecond), "announced while told to skip")
		active.Store(false)
		g.appendOne(t, "trip-2")
		require.True(t, closedWithin(wake, 5*time.Second), "not announced once no longer told to skip")
		// Awaited: the listener can be woken before Run counts the publish.
		require.Eventually(t, func() bool { return a.Sent() == 1 }, 5*time.Second, time.Millisecond)
	})

	t.Run("missing arguments are refused by name", func(t *testing.T) {
		t.Parallel()
		g := newRig(t)
		_, err := feedwake.NewAnnouncer(nil, g.store)
		require.ErrorIs(t, err, feedwake.ErrInvalid)
		require.ErrorContains(t, err, "NATS connection is nil")
		_, err = feedwake.NewAnnouncer(g.conn(t), nil)
		require.ErrorIs(t, err, feedwake.ErrInvalid)
		require.ErrorContains(t, err, "store to announce is nil")
		_, err = feedwake.NewAnnouncer(g.conn(t), g.store, feedwake.SkipWhile(nil))
		require.ErrorIs(t, err, feedwake.ErrInvalid)
		require.ErrorContains(t, err, "SkipWhile")
		_, err = feedwake.Listen(nil, "")
		require.ErrorIs(t, err, feedwake.ErrInvalid)
	})
}
