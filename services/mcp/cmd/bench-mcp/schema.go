package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"

	"github.com/jackc/pgx/v5"
)

// schema creates a PostgreSQL schema of the run's own on
// ROADBOOK_TEST_DATABASE_URL (default the local cluster) and returns a URL
// whose connections use it, and a function that drops it.
func schema(ctx context.Context) (string, func(), error) {
	server := os.Getenv("ROADBOOK_TEST_DATABASE_URL")
	if server == "" {
		server = "postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "bench_mcp_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(server)
	if err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	drop := func() {
		c, err := pgx.Connect(context.Background(), server)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP SCHEMA "+name+" CASCADE")
	}
	return u.String(), drop, nil
}
