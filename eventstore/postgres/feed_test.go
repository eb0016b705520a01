package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
)

// The feed's ORDER BY once named the select list's int8 cast of tx_id
// instead of the column, so PostgreSQL sorted every event after the cursor
// on each read: a relay catching up on a backlog sorted all of it per page.
// Under the LIMIT, the plan must walk events_feed in order, with no sort
// (the page with owners sorts its at most limit rows again above it).
// Sequential scans are turned off so that the table's size cannot decide
// the plan: with the old ORDER BY no plan without a sort exists at all.
func TestFeedReadWalksItsIndexWithoutSorting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Schema(t)
	s := postgres.New(pool)
	for i := range 20 {
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: eventstore.StreamID(fmt.Sprintf("s-%d", i)), Expected: eventstore.NoStream(),
			Owner: "alice", Events: []eventstore.NewEvent{{Payload: wrapperspb.String("x")}, {Payload: wrapperspb.String("y")}}})
		require.NoError(t, err)
	}
	for name, q := range map[string]string{"the feed": postgres.FeedSQL, "the feed page with owners": postgres.FeedPageSQL} {
		lines := plan(ctx, t, pool, q)
		limit := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "Limit") })
		require.GreaterOrEqual(t, limit, 0, "%s has no LIMIT:\n%v", name, lines)
		for _, l := range lines[limit:] {
			require.NotContains(t, l, "Sort", "%s sorts the events after the cursor instead of walking events_feed:\n%v", name, lines)
		}
		require.Contains(t, fmt.Sprint(lines), "events_feed", "%s does not use its index:\n%v", name, lines)
	}
}

// plan is the text plan of q with sequential scans off.
func plan(ctx context.Context, t *testing.T, pool *pgxpool.Pool, q string) []string {
	t.Helper()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SET LOCAL enable_seqscan = off`)
	require.NoError(t, err)
	rows, err := tx.Query(ctx, `EXPLAIN (FORMAT TEXT) `+q, "0", int64(0), 10)
	require.NoError(t, err)
	var lines []string
	for rows.Next() {
		var l string
		require.NoError(t, rows.Scan(&l))
		lines = append(lines, l)
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, lines)
	return lines
}

// settledPage reads the feed page after c once nothing committed is held
// back: the feed's horizon is the oldest transaction running anywhere on the
// server, and the package's other tests write in parallel on other schemas,
// so a read right after an append may find it held back for a moment (a
// third of the package's runs did, when this test read only once).
func settledPage(ctx context.Context, t *testing.T, s *postgres.Store, c eventstore.Cursor) eventstore.FeedPage {
	t.Helper()
	var page eventstore.FeedPage
	require.Eventually(t, func() bool {
		var err error
		page, err = s.ReadFeedPage(ctx, c, 10)
		require.NoError(t, err)
		return !page.HeldBack
	}, 10*time.Second, time.Millisecond, "committed events held back for 10 s")
	return page
}

func TestFeedPageNamesTheOwnerOfEachStreamItBegins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := postgres.New(pgtest.Schema(t))
	x := []eventstore.NewEvent{{Payload: wrapperspb.String("x")}}
	_, err := s.Append(ctx, eventstore.AppendRequest{Stream: "s-alice", Expected: eventstore.NoStream(), Owner: "alice", Events: append(x, x...)})
	require.NoError(t, err)
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "s-bob", Expected: eventstore.NoStream(), Owner: "bob", Events: x})
	require.NoError(t, err)
	first := settledPage(ctx, t, s, eventstore.Cursor{})
	require.Len(t, first.Events, 3)
	require.Equal(t, map[eventstore.StreamID]string{"s-alice": "alice", "s-bob": "bob"}, first.Owners)

	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "s-alice", Expected: eventstore.Exact(2), Owner: "alice", Events: x})
	require.NoError(t, err)
	next := settledPage(ctx, t, s, first.Next)
	require.Len(t, next.Events, 1)
	require.Empty(t, next.Owners, "a page that begins no stream names no owner")

	skipFirst := settledPage(ctx, t, s, first.Cursors[0])
	require.Equal(t, map[eventstore.StreamID]string{"s-bob": "bob"}, skipFirst.Owners, "alice's stream began before this page")
}
