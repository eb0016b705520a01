package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate brings the schema on the pool's search_path up to date. It is an
// explicit step (a Kubernetes Job in production, a test helper in tests),
// never run implicitly by Open, so replicas never race to change the schema.
// Concurrent calls on the same schema serialise on an advisory lock; applied
// versions are recorded in eventstore_migrations.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("eventstore/postgres: list migrations: %w", err)
	}
	sort.Strings(files)
	tx, err := pool.Begin(ctx)
	if err != nil {
		return translate("migrate", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('roadbook-eventstore-migrate:' || current_schema(), 0))`); err != nil {
		return translate("migrate", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS eventstore_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return translate("migrate", err)
	}
	applied := map[int]bool{}
	rows, err := tx.Query(ctx, `SELECT version FROM eventstore_migrations`)
	if err != nil {
		return translate("migrate", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return translate("migrate", err)
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return translate("migrate", err)
	}
	for _, f := range files {
		name := strings.TrimPrefix(f, "migrations/")
		prefix, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(prefix)
		if err != nil {
			return fmt.Errorf("eventstore/postgres: migration %s: name must start with a number", name)
		}
		if applied[v] {
			continue
		}
		body, err := migrations.ReadFile(f)
		if err != nil {
			return fmt.Errorf("eventstore/postgres: read migration %s: %w", name, err)
		}
		// The simple protocol runs a multi-statement script in one go.
		if _, err := tx.Conn().PgConn().Exec(ctx, string(body)).ReadAll(); err != nil {
			return fmt.Errorf("eventstore/postgres: migration %s: %w", name, translate("migrate", err))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO eventstore_migrations (version, name) VALUES ($1, $2)`, v, name); err != nil {
			return translate("migrate", err)
		}
	}
	return translate("migrate", tx.Commit(ctx))
}
