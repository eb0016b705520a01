package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// NewSchema creates an empty schema named prefix_<random> on the test server
// for programs that are not tests (the benchmarks), and returns a URL whose
// connections use it and a function that drops it. Migrating is the caller's.
func NewSchema(ctx context.Context, prefix string) (string, func(), error) {
	server := ServerURL()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := prefix + "_" + hex.EncodeToString(b[:])
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
