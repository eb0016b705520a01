package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
)

// storeNamed opens a store on url whose connections carry application_name
// app, so a test can find its backends in pg_stat_activity.
func storeNamed(t *testing.T, url, app string) *postgres.Store {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(t, err)
	postgres.ConfigurePool(cfg)
	cfg.ConnConfig.RuntimeParams["application_name"] = app
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return postgres.New(pool)
}

// listening runs s.ListenFeed until the test ends and returns once the
// LISTEN holds (ListenFeed wakes the readers then), with the channel on
// which ListenFeed's result arrives should it return before.
func listening(t *testing.T, s *postgres.Store) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	res, done := make(chan error, 1), make(chan struct{})
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the listener did not stop within 10 s of its context's end")
		}
		select {
		case err := <-res:
			require.NoError(t, err, "a listener told to stop returns nil")
		default: // read by the test already
		}
	})
	woken := s.Notify()
	go func() { res <- s.ListenFeed(ctx); close(done) }()
	select {
	case <-woken:
	case <-time.After(10 * time.Second):
		t.Fatal("the listener did not wake its readers within 10 s of starting")
	}
	return res
}

func appendOne(t *testing.T, s eventstore.Store, stream string) {
	t.Helper()
	_, err := s.Append(context.Background(), eventstore.AppendRequest{Stream: eventstore.StreamID(stream), Expected: eventstore.Any(), Owner: "ann",
		Events: []eventstore.NewEvent{{Payload: wrapperspb.Int64(1)}}})
	require.NoError(t, err)
}

func wokenWithin(t *testing.T, ch <-chan struct{}, d time.Duration, msg string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: not woken within %s", msg, d)
	}
}

func TestListenFeed(t *testing.T) {
	t.Parallel()
	url := pgtest.SchemaURL(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	app := "listen_" + hex.EncodeToString(b[:])
	listener := storeNamed(t, url, app)
	writer := storeNamed(t, url, app+"_w")
	stopped := listening(t, listener)

	t.Run("a commit through another store value wakes the listening store's readers", func(t *testing.T) {
		woken := listener.Notify()
		heard := postgres.Heard(listener)
		appendOne(t, writer, "from-another-process")
		wokenWithin(t, woken, 10*time.Second, "an append through the other store value")
		require.Eventually(t, func() bool { return postgres.Heard(listener) > heard }, 10*time.Second, time.Millisecond,
			"the wake came from the announcement, not from an append of the listener's own")
	})

	t.Run("the listening store announces none of its own commits, the other store each of its bursts", func(t *testing.T) {
		appendOne(t, listener, "own")
		require.False(t, postgres.Announcing(listener), "a commit of a listening store started an announcement")
		sent, _ := postgres.Announcements(listener)
		require.Zero(t, sent)
		before, _ := postgres.Announcements(writer)
		appendOne(t, writer, "other")
		require.Eventually(t, func() bool { sent, _ := postgres.Announcements(writer); return sent > before }, 10*time.Second, time.Millisecond)
		_, failed := postgres.Announcements(writer)
		require.Zero(t, failed)
	})

	t.Run("an announcement from another schema of the database wakes nobody", func(t *testing.T) {
		elsewhere := postgres.New(pgtest.Schema(t))
		heard := postgres.Heard(listener)
		appendOne(t, elsewhere, "elsewhere")
		require.Eventually(t, func() bool { sent, _ := postgres.Announcements(elsewhere); return sent == 1 }, 10*time.Second, time.Millisecond)
		// Notifications reach a listener in the order their transactions
		// committed: once the writer's, sent after the other schema's, has
		// been heard, the other schema's was read before it and dropped.
		before, _ := postgres.Announcements(writer)
		appendOne(t, writer, "after-elsewhere")
		require.Eventually(t, func() bool { sent, _ := postgres.Announcements(writer); return sent > before }, 10*time.Second, time.Millisecond)
		require.Eventually(t, func() bool { return postgres.Heard(listener) > heard }, 10*time.Second, time.Millisecond)
		require.Equal(t, heard+1, postgres.Heard(listener), "only the writer's announcement was heard")
	})

	t.Run("a listener whose connection is cut says so, and listening again wakes the readers again", func(t *testing.T) {
		ctx := context.Background()
		admin := postgres.New(pgtest.Schema(t))
		var cut int
		require.NoError(t, admin.Pool().QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = $1 AND query LIKE 'LISTEN%'`, app).Scan(&cut))
		require.Equal(t, 1, cut, "one listening backend of this test")
		select {
		case err := <-stopped:
			require.Error(t, err)
			require.Contains(t, err.Error(), "listen for commits")
		case <-time.After(10 * time.Second):
			t.Fatal("ListenFeed did not return within 10 s of its connection's end")
		}
		listening(t, listener)
		woken := listener.Notify()
		appendOne(t, writer, "after-the-cut")
		wokenWithin(t, woken, 10*time.Second, "an append after listening again")
	})
	t.Run("a store that stopped listening announces its commits again", func(t *testing.T) {
		s := storeNamed(t, url, app+"_stopped")
		ctx, cancel := context.WithCancel(context.Background())
		woken := s.Notify()
		res := make(chan error, 1)
		go func() { res <- s.ListenFeed(ctx) }()
		wokenWithin(t, woken, 10*time.Second, "the LISTEN holding")
		appendOne(t, s, "while-listening")
		require.False(t, postgres.Announcing(s))
		cancel()
		require.NoError(t, <-res)
		appendOne(t, s, "after-listening")
		require.Eventually(t, func() bool { sent, _ := postgres.Announcements(s); return sent == 1 }, 10*time.Second, time.Millisecond)
	})
}
