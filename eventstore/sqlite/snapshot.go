package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/roadbook/roadbook/eventstore"
)

// SaveSnapshot implements eventstore.Store. One snapshot is kept per stream
// and schema version; an older version never replaces a newer one (two
// readers may fold and save concurrently). The stream must exist and be at
// or past the snapshot's version.
func (s *Store) SaveSnapshot(ctx context.Context, snap eventstore.Snapshot) error {
	if err := snap.Stream.Validate(); err != nil {
		return err
	}
	switch {
	case snap.Version < 1:
		return invalid("snapshot version", "%d: a snapshot folds at least one event", snap.Version)
	case snap.SchemaVersion < 1:
		return invalid("snapshot schema version", "%d: state schema versions start at 1", snap.SchemaVersion)
	case snap.Data == nil:
		return invalid("snapshot data", "nil")
	}
	now := micros(s.cfg.now())
	return translate(ctx, s.write(ctx, func(tx *sql.Tx) error {
		var current int64
		err := tx.QueryRowContext(ctx, `SELECT version FROM streams WHERE stream_id = ?`, string(snap.Stream)).Scan(&current)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: stream %q", eventstore.ErrNotFound, snap.Stream)
		}
		if err != nil {
			return err
		}
		if snap.Version > current {
			return invalid("snapshot version", "%d is past the stream's version %d", snap.Version, current)
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO snapshots (stream_id, schema_version, version, data, created_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (stream_id, schema_version) DO UPDATE SET
				version = excluded.version, data = excluded.data, created_at = excluded.created_at
			WHERE excluded.version >= snapshots.version`,
			string(snap.Stream), snap.SchemaVersion, snap.Version, snap.Data, now)
		return err
	}))
}

// LoadSnapshot implements eventstore.Store.
func (s *Store) LoadSnapshot(ctx context.Context, stream eventstore.StreamID, schemaVersion int) (eventstore.Snapshot, error) {
	if err := stream.Validate(); err != nil {
		return eventstore.Snapshot{}, err
	}
	snap := eventstore.Snapshot{Stream: stream, SchemaVersion: schemaVersion}
	err := s.r.QueryRowContext(ctx, `SELECT version, data FROM snapshots WHERE stream_id = ? AND schema_version = ?`, string(stream), schemaVersion).
		Scan(&snap.Version, &snap.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return eventstore.Snapshot{}, fmt.Errorf("%w: no snapshot of %q for schema version %d", eventstore.ErrNotFound, stream, schemaVersion)
	}
	if err != nil {
		return eventstore.Snapshot{}, translate(ctx, err)
	}
	return snap, nil
}
