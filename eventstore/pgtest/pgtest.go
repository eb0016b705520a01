// Package pgtest gives each test an isolated, migrated PostgreSQL schema on a
// real server, so tests run in parallel without seeing each other's rows and
// without mocks (ARCHITECTURE §10).
//
// The server is ROADBOOK_TEST_DATABASE_URL, by default the local cluster
// (DefaultURL); `make test` starts it first.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roadbook/roadbook/eventstore/postgres"
)

// DefaultURL is used when ROADBOOK_TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable"

// EnvURL names the environment variable holding the test server's URL.
const EnvURL = "ROADBOOK_TEST_DATABASE_URL"

// ServerURL returns the test server's URL (the environment's, or DefaultURL).
func ServerURL() string {
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	return DefaultURL
}

// SchemaURL creates a fresh schema, runs the event store migrations in it,
// registers its removal with t.Cleanup, and returns a connection URL whose
// search_path is that schema. Use it where code under test opens its own
// connections from a URL.
func SchemaURL(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server := ServerURL()
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("pgtest: random schema name: %v", err)
	}
	schema := "test_" + hex.EncodeToString(b[:])
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("pgtest: connect to %s (set %s, or run scripts/ensure-postgres.sh): %v", redact(server), EnvURL, err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, server)
		if err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
		}
	})
	u := withSearchPath(t, server, schema)
	pool := open(t, ctx, u)
	defer pool.Close()
	if err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatalf("pgtest: migrate schema %s: %v", schema, err)
	}
	return u
}

// Schema is SchemaURL returning a pool on the schema (configured with
// postgres.ConfigurePool), closed in t.Cleanup before the schema is dropped.
func Schema(t testing.TB) *pgxpool.Pool {
	t.Helper()
	u := SchemaURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool := open(t, ctx, u)
	t.Cleanup(pool.Close)
	return pool
}

func open(t testing.TB, ctx context.Context, u string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(u)
	if err != nil {
		t.Fatalf("pgtest: parse %s: %v", redact(u), err)
	}
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("pgtest: open pool: %v", err)
	}
	return pool
}

// withSearchPath adds search_path=<schema> to a URL or key=value DSN; pgx
// sends unknown parameters as run-time settings of every connection.
func withSearchPath(t testing.TB, server, schema string) string {
	t.Helper()
	if !strings.Contains(server, "://") {
		return server + " search_path=" + schema
	}
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("pgtest: parse %s: %v", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}
