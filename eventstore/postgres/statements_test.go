package postgres_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
)

// statementCounter counts the statements a pool sends, whether alone or in
// a pipelined batch (n), and the round trips they take (trips: a statement
// alone or a whole batch).
type statementCounter struct{ n, trips atomic.Int64 }

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	c.trips.Add(1)
	return ctx
}
func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *statementCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.trips.Add(1)
	return ctx
}
func (c *statementCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	c.n.Add(1)
}
func (c *statementCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// countedStore is a store on a fresh schema whose pool counts statements.
func countedStore(t *testing.T) (*postgres.Store, *statementCounter) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.SchemaURL(t))
	require.NoError(t, err)
	postgres.ConfigurePool(cfg)
	counter := &statementCounter{}
	cfg.ConnConfig.Tracer = counter
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	s := postgres.New(pool)
	t.Cleanup(s.Close)
	return s, counter
}

func TestStatementsPerCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, counter := countedStore(t)
	for i := range 3 {
		expected := eventstore.Exact(int64(i))
		if i == 0 {
			expected = eventstore.NoStream()
		}
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: "tail-count", Expected: expected, Owner: "ann",
			Events: []eventstore.NewEvent{{Payload: wrapperspb.Int64(int64(i))}}})
		require.NoError(t, err)
	}
	t.Run("a load is one statement, the head row and the events together", func(t *testing.T) {
		for _, after := range []int64{0, 2, 3} {
			counter.n.Store(0)
			info, events, err := s.ReadStreamTail(ctx, "tail-count", after, 0)
			require.NoError(t, err)
			require.EqualValues(t, 3, info.Version)
			require.Len(t, events, int(3-after))
			require.EqualValues(t, 1, counter.n.Load(), "a load after version %d", after)
		}
	})
	t.Run("a keyed append is BEGIN, key lock, key lookup, stream lock, the append recording the key, and COMMIT, in one round trip", func(t *testing.T) {
		key := &eventstore.Idempotency{Key: "count-key", RequestHash: []byte("h"), Response: []byte("r"), ExpiresAt: time.Now().Add(time.Hour)}
		req := eventstore.AppendRequest{Stream: "tail-count", Expected: eventstore.Exact(3), Owner: "ann", Idempotency: key,
			Events: []eventstore.NewEvent{{Payload: wrapperspb.Int64(3)}}}
		counter.n.Store(0)
		counter.trips.Store(0)
		res, err := s.Append(ctx, req)
		require.NoError(t, err)
		require.False(t, res.Replayed)
		require.EqualValues(t, 6, counter.n.Load())
		require.EqualValues(t, 1, counter.trips.Load())
		counter.trips.Store(0)
		again, err := s.Append(ctx, req)
		require.NoError(t, err)
		require.True(t, again.Replayed, "the key was recorded by the append itself")
		require.EqualValues(t, 1, counter.trips.Load(), "a replay is answered from the same round trip")
		require.Equal(t, res.Version, again.Version)
		require.Equal(t, []byte("r"), again.Response)
		info, err := s.Stream(ctx, "tail-count")
		require.NoError(t, err)
		require.EqualValues(t, 4, info.Version, "the replay appended nothing")
	})
}
