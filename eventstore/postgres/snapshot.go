package postgres

import (
	"context"
	"fmt"

	"github.com/roadbook/roadbook/eventstore"
)

// SaveSnapshot implements eventstore.Store. It keeps the newest snapshot per
// (stream, schema version): an older one than stored is ignored. The stream
// must exist and be at least at the snapshot's version.
func (s *Store) SaveSnapshot(ctx context.Context, snap eventstore.Snapshot) error {
	if err := snap.Stream.Validate(); err != nil {
		return err
	}
	switch {
	case snap.Version < 1:
		return &eventstore.InvalidError{Field: "snapshot version", Reason: fmt.Sprintf("%d, want ≥ 1", snap.Version)}
	case snap.SchemaVersion < 1:
		return &eventstore.InvalidError{Field: "snapshot schema version", Reason: fmt.Sprintf("%d, want ≥ 1", snap.SchemaVersion)}
	case len(snap.Data) == 0:
		return &eventstore.InvalidError{Field: "snapshot data", Reason: "empty"}
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO snapshots (stream_id, schema_version, version, data)
		SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM streams WHERE stream_id = $1 AND version >= $3)
		ON CONFLICT (stream_id, schema_version) DO UPDATE SET version = excluded.version, data = excluded.data, created_at = now()
		WHERE snapshots.version <= excluded.version`,
		string(snap.Stream), snap.SchemaVersion, snap.Version, snap.Data)
	if err != nil {
		return translate("save snapshot", err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	info, err := s.head(ctx, snap.Stream)
	if err != nil {
		return err
	}
	if info.Version < snap.Version {
		return &eventstore.InvalidError{Field: "snapshot version", Reason: fmt.Sprintf("%d is beyond the stream's version %d", snap.Version, info.Version)}
	}
	return nil // a newer snapshot is already stored
}

// LoadSnapshot implements eventstore.Store.
func (s *Store) LoadSnapshot(ctx context.Context, stream eventstore.StreamID, schemaVersion int) (eventstore.Snapshot, error) {
	if err := stream.Validate(); err != nil {
		return eventstore.Snapshot{}, err
	}
	snap := eventstore.Snapshot{Stream: stream, SchemaVersion: schemaVersion}
	err := s.pool.QueryRow(ctx, `SELECT version, data FROM snapshots WHERE stream_id = $1 AND schema_version = $2`,
		string(stream), schemaVersion).Scan(&snap.Version, &snap.Data)
	if err != nil {
		return eventstore.Snapshot{}, translate(fmt.Sprintf("load snapshot of %q (schema %d)", stream, schemaVersion), err)
	}
	return snap, nil
}
