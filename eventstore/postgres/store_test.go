package postgres_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/eventstore/storetest"
)

func newStore(t *testing.T) eventstore.Store {
	// A small deletion chunk, so the conformance deletions run in chunks.
	s := postgres.New(pgtest.Schema(t), postgres.WithChunk(7))
	t.Cleanup(s.Close)
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, storetest.Harness{
		New:                    newStore,
		ConcurrentTransactions: true,
		HoldAppend:             postgres.HoldAppend,
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	pool := pgtest.Schema(t) // migrated once already
	require.NoError(t, postgres.Migrate(context.Background(), pool))
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM eventstore_migrations`).Scan(&n))
	files, err := filepath.Glob("migrations/*.sql")
	require.NoError(t, err)
	require.Len(t, files, n, "each migration recorded once")
}

func TestUnknownEventTypeIsAClearError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Schema(t)
	s := postgres.New(pool)
	_, err := s.Append(ctx, eventstore.AppendRequest{Stream: "s-1", Expected: eventstore.NoStream(), Owner: "alice",
		Events: []eventstore.NewEvent{{Payload: wrapperspb.String("x")}}})
	require.NoError(t, err)
	// A type this binary does not know, as written by a newer one.
	_, err = pool.Exec(ctx, `UPDATE events SET type = 'roadbook.events.v9.FromTheFuture'`)
	require.NoError(t, err)
	_, err = s.ReadStream(ctx, "s-1", 0, 0)
	require.ErrorIs(t, err, eventstore.ErrUnknownEventType)
	require.Contains(t, err.Error(), "roadbook.events.v9.FromTheFuture")
}

func TestPoolConnectionsEndIdleTransactions(t *testing.T) {
	t.Parallel()
	pool := pgtest.Schema(t)
	var v string
	require.NoError(t, pool.QueryRow(context.Background(), `SHOW idle_in_transaction_session_timeout`).Scan(&v))
	require.Equal(t, postgres.IdleInTransactionTimeout, v)
}

func TestCursorSavesCommitAsynchronouslyAndOnlyThemselves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.SchemaURL(t))
	require.NoError(t, err)
	cfg.MaxConns = 1 // the save and the checks below share one session
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	s := postgres.New(pool)

	require.NoError(t, s.SaveCursor(ctx, "relay", eventstore.Cursor{TxID: 7, Position: 3}))
	got, err := s.LoadCursor(ctx, "relay")
	require.NoError(t, err)
	require.Equal(t, eventstore.Cursor{TxID: 7, Position: 3}, got)
	var setting string
	require.NoError(t, pool.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&setting))
	require.Equal(t, "on", setting, "the asynchronous commit is the save's own; appends on the same connection stay synchronous")
}
