package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// migrations are compiled in, so the binary carries the schema it needs.
//
//go:embed migrations/*.sql
var migrations embed.FS

// Migrate brings the schema up to date; it is idempotent. It is explicit —
// never run implicitly by Open — so that, as with PostgreSQL, the host
// decides when a schema changes. The applied version is SQLite's
// user_version, set in the same transaction as each migration, so a failed
// migration leaves the database as it was.
func (s *Store) Migrate(ctx context.Context) error {
	files, err := migrationFiles()
	if err != nil {
		return err
	}
	return translate(ctx, s.write(ctx, func(tx *sql.Tx) error {
		var current int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
			return err
		}
		if latest := files[len(files)-1].version; current > latest {
			return fmt.Errorf("eventstore/sqlite: database schema version %d is newer than this binary's %d", current, latest)
		}
		for _, f := range files {
			if f.version <= current {
				continue
			}
			body, err := fs.ReadFile(migrations, f.path)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", f.path, err)
			}
			// PRAGMA takes no bound parameters; the version is our own integer.
			if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(f.version)); err != nil {
				return err
			}
		}
		return nil
	}))
}

type migrationFile struct {
	version int
	path    string
}

// migrationFiles lists the embedded migrations in order; each is named
// NNNN_what.sql and NNNN is its schema version.
func migrationFiles() ([]migrationFile, error) {
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	var files []migrationFile
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("eventstore/sqlite: migration %q is not named NNNN_what.sql", e.Name())
		}
		files = append(files, migrationFile{version: v, path: "migrations/" + e.Name()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].version < files[j].version })
	return files, nil
}
