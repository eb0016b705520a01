package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
)

// The feed's ORDER BY once named the select list's int8 cast of tx_id
// instead of the column, so PostgreSQL sorted every event after the cursor
// on each read: a relay catching up on a backlog sorted all of it per page.
// The plan must walk events_feed in order, with no sort. Sequential scans
// are turned off so that the table's size cannot decide the plan: with the
// old ORDER BY no plan without a sort exists at all.
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
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SET LOCAL enable_seqscan = off`)
	require.NoError(t, err)
	rows, err := tx.Query(ctx, `EXPLAIN (FORMAT TEXT) `+postgres.FeedSQL, "0", int64(0), 10)
	require.NoError(t, err)
	var lines []string
	for rows.Next() {
		var l string
		require.NoError(t, rows.Scan(&l))
		lines = append(lines, l)
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, lines)
	for _, l := range lines {
		require.NotContains(t, l, "Sort", "the feed read sorts instead of walking events_feed:\n%v", lines)
	}
	require.Contains(t, fmt.Sprint(lines), "events_feed", "the feed read does not use its index:\n%v", lines)
}
