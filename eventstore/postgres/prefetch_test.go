package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/postgres"
)

// The relay asks the store to read its next feed page with the next append
// (eventstore.FeedPrefetcher). These tests hold the store to the promise
// that such a page is the relay's own read, sent earlier: the same events,
// cursors, owners and held-back flag as a read of its own, a wake-up that
// misses no commit after it, and no wait on an append that is stuck.
func TestPrefetchedFeedPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := eventstore.Cursor{}

	t.Run("an append carries the page the reader asked for in its own round trip, and the reader's read of it sends nothing", func(t *testing.T) {
		t.Parallel()
		s, counter := countedStore(t)
		plain := postgres.New(s.Pool()) // the same database, no request of its own
		appendOne(ctx, t, s, "pf-a", eventstore.NoStream())
		s.PrefetchFeed(start, 100)
		counter.trips.Store(0)
		appendOne(ctx, t, s, "pf-b", eventstore.NoStream())
		require.EqualValues(t, 1, counter.trips.Load(), "the append and the page, one round trip")

		counter.trips.Store(0)
		got, err := s.ReadFeedPage(ctx, start, 100)
		require.NoError(t, err)
		require.Zero(t, counter.trips.Load(), "the reader sent nothing")
		require.NotNil(t, got.Wake)
		want := settledPage(ctx, t, plain, start)
		require.Nil(t, want.Wake, "a page read by the reader itself leaves it its own wake-up")
		require.Len(t, want.Events, 2)
		got.Wake = nil
		if got.HeldBack {
			// A transaction elsewhere on the cluster held the feed back
			// when the append read it: what it read is the start of
			// the reader's later read.
			requireRun(t, want.Events, 0, got.Events)
			return
		}
		require.Equal(t, want, got, "the page is the reader's own read")
		require.Equal(t, map[eventstore.StreamID]string{"pf-a": "ann", "pf-b": "ann"}, got.Owners)
	})

	t.Run("the page is handed out once, and asking again drops it", func(t *testing.T) {
		t.Parallel()
		s, counter := countedStore(t)
		s.PrefetchFeed(start, 100)
		appendOne(ctx, t, s, "pf-once", eventstore.NoStream())
		_, err := s.ReadFeedPage(ctx, start, 100)
		require.NoError(t, err)
		counter.trips.Store(0)
		again, err := s.ReadFeedPage(ctx, start, 100)
		require.NoError(t, err)
		require.EqualValues(t, 1, counter.trips.Load(), "the second read is the reader's own")
		require.Nil(t, again.Wake)

		s.PrefetchFeed(start, 100)
		appendOne(ctx, t, s, "pf-once", eventstore.Exact(1))
		s.PrefetchFeed(start, 100) // asked again before reading it
		counter.trips.Store(0)
		p, err := s.ReadFeedPage(ctx, start, 100)
		require.NoError(t, err)
		require.EqualValues(t, 1, counter.trips.Load(), "a page asked for before the last request is dropped")
		require.Nil(t, p.Wake)

		elsewhere := settledPage(ctx, t, postgres.New(s.Pool()), start).Next
		require.NotEqual(t, start, elsewhere)
		s.PrefetchFeed(start, 100)
		appendOne(ctx, t, s, "pf-once", eventstore.Exact(2))
		counter.trips.Store(0)
		_, err = s.ReadFeedPage(ctx, elsewhere, 100)
		require.NoError(t, err)
		require.EqualValues(t, 1, counter.trips.Load(), "a page read for one cursor is not handed out for another")
	})

	t.Run("an append that fails returns its error and leaves the request to the next append; one that is refused still reads the page", func(t *testing.T) {
		t.Parallel()
		s, counter := countedStore(t)
		id := uuid.New()
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: "pf-dup-1", Expected: eventstore.NoStream(), Owner: "ann",
			Events: []eventstore.NewEvent{{ID: id, Payload: wrapperspb.Int64(1)}}})
		require.NoError(t, err)

		s.PrefetchFeed(start, 100)
		_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "pf-dup-2", Expected: eventstore.NoStream(), Owner: "ann",
			Events: []eventstore.NewEvent{{ID: id, Payload: wrapperspb.Int64(2)}}})
		require.ErrorIs(t, err, eventstore.ErrDuplicateEvent)
		_, err = s.Stream(ctx, "pf-dup-2")
		require.ErrorIs(t, err, eventstore.ErrNotFound, "the failed append wrote nothing")

		appendOne(ctx, t, s, "pf-next", eventstore.NoStream())
		counter.trips.Store(0)
		p, err := s.ReadFeedPage(ctx, start, 100)
		require.NoError(t, err)
		require.Zero(t, counter.trips.Load(), "the next append read the page")
		require.NotNil(t, p.Wake)

		s.PrefetchFeed(p.Next, 100)
		_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "pf-next", Expected: eventstore.Exact(7), Owner: "ann",
			Events: []eventstore.NewEvent{{Payload: wrapperspb.Int64(3)}}})
		var conflict *eventstore.VersionConflictError
		require.ErrorAs(t, err, &conflict)
		require.EqualValues(t, 1, conflict.Current)
		counter.trips.Store(0)
		after, err := s.ReadFeedPage(ctx, p.Next, 100)
		require.NoError(t, err)
		require.Zero(t, counter.trips.Load(), "the refused append read the page")
		require.NotNil(t, after.Wake)
		all := settledPage(ctx, t, postgres.New(s.Pool()), start).Events
		require.Len(t, all, 2, "the failed append's event is nowhere, the refused one's neither")
		// Each page is the start of what was left to read at its cursor:
		// another test's open transaction may have held events back.
		requireRun(t, all, 0, p.Events)
		requireRun(t, all, len(p.Events), after.Events)
	})

	t.Run("a page read while an older transaction is open holds back what the reader's own read would", func(t *testing.T) {
		t.Parallel()
		s, _ := countedStore(t)
		plain := postgres.New(s.Pool())
		commit, err := postgres.HoldAppend(ctx, s, eventstore.AppendRequest{Stream: "pf-open", Expected: eventstore.NoStream(), Owner: "ann",
			Events: []eventstore.NewEvent{{Payload: wrapperspb.Int64(1)}}})
		require.NoError(t, err)
		s.PrefetchFeed(start, 100)
		appendOne(ctx, t, s, "pf-after", eventstore.NoStream())
		got, err := s.ReadFeedPage(ctx, start, 100)
		require.NoError(t, err)
		require.NotNil(t, got.Wake)
		require.Empty(t, got.Events, "the later append waits behind the open transaction")
		require.True(t, got.HeldBack)
		want, err := plain.ReadFeedPage(ctx, start, 100)
		require.NoError(t, err)
		require.Empty(t, want.Events)
		require.True(t, want.HeldBack)
		require.NoError(t, commit())
	})

	t.Run("a commit signalled after the page's read was sent leaves its wake-up closed; without one it closes at the next commit", func(t *testing.T) {
		t.Parallel()
		s, _ := countedStore(t)
		s.PrefetchFeed(start, 100)
		appendOne(ctx, t, s, "pf-quiet", eventstore.NoStream())
		quiet, err := s.ReadFeedPage(ctx, start, 100)
		require.NoError(t, err)
		requireOpen(t, quiet.Wake, "nothing but the page's own append committed")
		appendOne(ctx, t, s, "pf-quiet", eventstore.Exact(1))
		requireClosed(t, quiet.Wake)

		// The held append owns the stream's lock, so the prefetching
		// append sends its batch and waits on the lock; the held one's
		// commit is signalled after that, and may come after the page's
		// snapshot too, as far as the reader can tell.
		s.PrefetchFeed(quiet.Next, 100)
		commit, appended := blockedAppend(ctx, t, s, "pf-busy")
		require.NoError(t, commit())
		require.NoError(t, <-appended)
		busy, err := s.ReadFeedPage(ctx, quiet.Next, 100)
		require.NoError(t, err)
		require.NotNil(t, busy.Wake, "the page came from the append")
		requireClosed(t, busy.Wake)
	})

	t.Run("a read at the cursor of a page still being read waits for it", func(t *testing.T) {
		t.Parallel()
		s, _ := countedStore(t)
		postgres.SetPrefetchWait(s, time.Minute)
		s.PrefetchFeed(start, 100)
		commit, appended := blockedAppend(ctx, t, s, "pf-wait")
		read := make(chan eventstore.FeedPage, 1)
		go func() {
			p, err := s.ReadFeedPage(ctx, start, 100)
			require.NoError(t, err)
			read <- p
		}()
		select {
		case <-read:
			t.Fatal("the read returned while the page was still being read")
		case <-time.After(100 * time.Millisecond):
		}
		require.NoError(t, commit())
		require.NoError(t, <-appended)
		p := <-read
		require.NotNil(t, p.Wake, "the page came from the append")
	})

	t.Run("a page still being read when the reader asks again is dropped when it lands", func(t *testing.T) {
		t.Parallel()
		s, _ := countedStore(t)
		s.PrefetchFeed(start, 100)
		commit, appended := blockedAppend(ctx, t, s, "pf-reask")
		s.PrefetchFeed(start, 100) // the same cursor: the reader may have taken wake-ups since the append took the first request
		require.NoError(t, commit())
		require.NoError(t, <-appended)
		p, err := s.ReadFeedPage(ctx, start, 100)
		require.NoError(t, err)
		require.Nil(t, p.Wake, "the reader read the page itself")
	})

	t.Run("a read does not wait long for an append stuck behind a lock: it reads on its own", func(t *testing.T) {
		t.Parallel()
		s, _ := countedStore(t)
		s.PrefetchFeed(start, 100)
		commit, appended := blockedAppend(ctx, t, s, "pf-stuck")
		p, err := s.ReadFeedPage(ctx, start, 100) // the append stays stuck: only its own read can answer
		require.NoError(t, err)
		require.Nil(t, p.Wake, "the reader read the page itself")
		require.Empty(t, p.Events)
		require.NoError(t, commit())
		require.NoError(t, <-appended)
	})
}

// blockedAppend appends one event to stream behind another that holds the
// stream's lock (HoldAppend): it returns once the append has sent its
// batch (and with it any page the reader asked for) and waits on the lock.
// commit ends the holder; appended then receives the append's error.
func blockedAppend(ctx context.Context, t *testing.T, s *postgres.Store, stream eventstore.StreamID) (commit func() error, appended <-chan error) {
	t.Helper()
	commit, err := postgres.HoldAppend(ctx, s, eventstore.AppendRequest{Stream: stream, Expected: eventstore.NoStream(), Owner: "ann",
		Events: []eventstore.NewEvent{{Payload: wrapperspb.Int64(1)}}})
	require.NoError(t, err)
	// A test that fails before it commits must not leave the transaction
	// open: it would hold the feed back for every other test.
	t.Cleanup(func() { _ = commit() })
	done := make(chan error, 1)
	go func() {
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: stream, Expected: eventstore.Exact(1), Owner: "ann",
			Events: []eventstore.NewEvent{{Payload: wrapperspb.Int64(2)}}})
		done <- err
	}()
	waitForStreamLock(ctx, t, s.Pool(), string(stream))
	return commit, done
}

// appendOne appends one event to stream as "ann".
func appendOne(ctx context.Context, t *testing.T, s *postgres.Store, stream eventstore.StreamID, expected eventstore.ExpectedVersion) {
	t.Helper()
	_, err := s.Append(ctx, eventstore.AppendRequest{Stream: stream, Expected: expected, Owner: "ann",
		Events: []eventstore.NewEvent{{Payload: wrapperspb.String(string(stream))}}})
	require.NoError(t, err)
}

// waitForStreamLock returns once a backend waits for stream's lock (the
// advisory lock every append takes first). The lock's key is the
// database's, not the schema's: each subtest names its streams its own.
func waitForStreamLock(ctx context.Context, t *testing.T, pool *pgxpool.Pool, stream string) {
	t.Helper()
	require.Eventually(t, func() bool {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks l
			WHERE l.locktype = 'advisory' AND NOT l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
				AND l.classid = ((hashtextextended('s:' || $1, 0) >> 32) & 4294967295)::oid
				AND l.objid = (hashtextextended('s:' || $1, 0) & 4294967295)::oid`, stream).Scan(&n)
		require.NoError(t, err)
		return n > 0
	}, 10*time.Second, time.Millisecond, "no append waits for %s's lock", stream)
}

// requireRun requires events to be all[from:from+len(events)].
func requireRun(t *testing.T, all []eventstore.RecordedEvent, from int, events []eventstore.RecordedEvent) {
	t.Helper()
	require.LessOrEqual(t, from+len(events), len(all))
	for i, e := range events {
		require.Equal(t, all[from+i], e)
	}
}

func requireOpen(t *testing.T, ch <-chan struct{}, why string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("the channel is closed: %s", why)
	default:
	}
}

func requireClosed(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	default:
		t.Fatal("the channel is still open")
	}
}
