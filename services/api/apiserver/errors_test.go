package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore/postgres"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/testkit"
)

// TestConnectErrorTransient feeds connectError the errors a read meets
// under load or while PostgreSQL or NATS restarts — produced by the real
// driver, store and client, wrapped as they arrive — and requires
// Unavailable (or DeadlineExceeded) with a CODE_UNAVAILABLE retry delay,
// never Internal; errors that are bugs stay Internal.
func TestConnectErrorTransient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testkit.SchemaURL(t)

	// The store's pool with one connection, never pinged before use: the
	// next call meets whatever happened to that connection.
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(t, err)
	postgres.ConfigurePool(cfg)
	cfg.MaxConns, cfg.MinConns = 1, 0
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	const stream = "trip-00000000-0000-4000-8000-000000000001"

	// PostgreSQL ends the store's backend as a fast shutdown does (57P01,
	// "terminating connection due to administrator command").
	var pid int
	require.NoError(t, pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid))
	admin, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close(ctx) })
	var killed bool
	require.NoError(t, admin.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&killed))
	require.True(t, killed)
	for alive, tries := true, 0; alive; tries++ {
		require.Less(t, tries, 1000, "backend %d never ended", pid)
		time.Sleep(10 * time.Millisecond)
		require.NoError(t, admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)`, pid).Scan(&alive))
	}
	_, terminated := store.Stream(ctx, stream)
	require.Error(t, terminated)

	// The server refuses connections (stopped, or not yet listening again).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := ln.Addr().String()
	require.NoError(t, ln.Close())
	_, refused := postgres.Open(ctx, "postgres://roadbook@"+down+"/roadbook?sslmode=disable&connect_timeout=5")
	var connectErr *pgconn.ConnectError
	require.ErrorAs(t, refused, &connectErr)

	// A statement cancelled by the server's statement_timeout, wrapped as
	// the store wraps 57014.
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `SET statement_timeout = 1`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `SELECT pg_sleep(1)`)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "57014", pgErr.Code)
	statementTimeout := fmt.Errorf("eventstore/postgres: read stream: cancelled by the server: %w", err)

	// A call on a connection the driver already closed.
	require.NoError(t, conn.Close(ctx))
	_, err = conn.Exec(ctx, `SELECT 1`)
	require.ErrorIs(t, err, pgconn.ErrConnClosed)
	connClosed := fmt.Errorf("eventstore/postgres: stream: %w", err)

	// The caller's deadline passes inside the store.
	past, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	_, deadline := store.Stream(past, stream)
	require.ErrorIs(t, deadline, context.DeadlineExceeded)

	// NATS: a request on a closed connection, and one nobody answers.
	ns, _ := testkit.NATS(t)
	nc, err := nats.Connect(ns.URL())
	require.NoError(t, err)
	_, noResponders := nc.Request("geocode.search", nil, 5*time.Second)
	require.ErrorIs(t, noResponders, nats.ErrNoResponders)
	nc.Close()
	_, natsClosed := nc.Request("geocode.search", nil, 5*time.Second)
	require.ErrorIs(t, natsClosed, nats.ErrConnectionClosed)

	_, dialErr := net.Dial("tcp", down)
	require.Error(t, dialErr)

	for _, tc := range []struct {
		name string
		err  error
		code connect.Code
	}{
		{"a backend terminated by a PostgreSQL shutdown (57P01)", terminated, connect.CodeUnavailable},
		{"a refused PostgreSQL connection", refused, connect.CodeUnavailable},
		{"a PostgreSQL still starting up (57P03)", fmt.Errorf("eventstore/postgres: stream: the database system is starting up (SQLSTATE 57P03): %w",
			&pgconn.PgError{Severity: "FATAL", Code: "57P03", Message: "the database system is starting up"}), connect.CodeUnavailable},
		{"too many PostgreSQL connections (53300)", fmt.Errorf("eventstore/postgres: stream: %w",
			&pgconn.PgError{Severity: "FATAL", Code: "53300", Message: "sorry, too many clients already"}), connect.CodeUnavailable},
		{"a serialization failure (40001)", fmt.Errorf("eventstore/postgres: append: %w",
			&pgconn.PgError{Severity: "ERROR", Code: "40001", Message: "could not serialize access"}), connect.CodeUnavailable},
		{"a statement timeout (57014)", statementTimeout, connect.CodeUnavailable},
		{"a closed driver connection", connClosed, connect.CodeUnavailable},
		{"a refused TCP dial", fmt.Errorf("eventstore/postgres: open: %w", dialErr), connect.CodeUnavailable},
		{"NATS without a responder", noResponders, connect.CodeUnavailable},
		{"NATS after its connection closed", natsClosed, connect.CodeUnavailable},
		{"the caller's deadline passing in the store", deadline, connect.CodeDeadlineExceeded},
	} {
		t.Run(tc.name+" answers "+tc.code.String()+" with a retry delay", func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			got := connectError(ctx, slog.New(slog.NewTextHandler(&logs, nil)), tc.err)
			var ce *connect.Error
			require.ErrorAs(t, got, &ce)
			require.Equal(t, tc.code, ce.Code(), "%v", tc.err)
			info := errorInfoOf(t, ce)
			require.Equal(t, roadbookv1.Code_CODE_UNAVAILABLE, info.GetCode())
			require.Positive(t, info.GetRetryDelay().AsDuration())
			require.NotContains(t, ce.Message(), "SQLSTATE", "the cause stays in the log")
			require.NotContains(t, ce.Message(), "127.0.0.1", "the cause stays in the log")
			require.Contains(t, logs.String(), "level=WARN")
			require.NotContains(t, logs.String(), "level=ERROR", "an infrastructure hiccup is not logged as a bug")
		})
	}

	for _, tc := range []struct {
		name string
		err  error
	}{
		{"an error nobody classified", errors.New("boom")},
		{"a stream whose versions jump", fmt.Errorf("aggregate: stream %q jumps from version %d to %d", stream, 3, 5)},
		{"a unique violation on another constraint (23505)", fmt.Errorf("eventstore/postgres: append: %w",
			&pgconn.PgError{Severity: "ERROR", Code: "23505", ConstraintName: "shares_code_key"})},
		{"a missing table (42P01)", fmt.Errorf("eventstore/postgres: read stream: %w",
			&pgconn.PgError{Severity: "ERROR", Code: "42P01", Message: `relation "events" does not exist`})},
	} {
		t.Run(tc.name+" stays internal", func(t *testing.T) {
			t.Parallel()
			got := connectError(ctx, slog.New(slog.DiscardHandler), tc.err)
			require.Equal(t, connect.CodeInternal, connect.CodeOf(got))
			require.Equal(t, "internal error", got.(*connect.Error).Message())
		})
	}

	t.Run("a domain refusal keeps its own code", func(t *testing.T) {
		t.Parallel()
		got := connectError(ctx, slog.New(slog.DiscardHandler), fmt.Errorf("load: %w", &trip.Error{Code: trip.CodeNotFound}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(got))
	})
}

// errorInfoOf is the roadbook.v1.ErrorInfo detail of ce.
func errorInfoOf(t *testing.T, ce *connect.Error) *roadbookv1.ErrorInfo {
	t.Helper()
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			if info, ok := v.(*roadbookv1.ErrorInfo); ok {
				return info
			}
		}
	}
	t.Fatalf("no ErrorInfo in %v", ce)
	return nil
}
