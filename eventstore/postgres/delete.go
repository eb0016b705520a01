package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/eventstore"
)

// DeleteStream implements eventstore.Store. One short transaction (holding
// the stream's lock) writes the tombstone and removes the stream row,
// snapshots and blob references, so appends are refused from then on; the
// events are then deleted in chunks of their own transactions, so deleting a
// long stream never holds the feed back. Deleting a deleted stream finishes
// any leftover chunks and succeeds; an unknown stream is ErrNotFound.
func (s *Store) DeleteStream(ctx context.Context, stream eventstore.StreamID) error {
	if err := stream.Validate(); err != nil {
		return err
	}
	if err := s.tombstone(ctx, stream); err != nil {
		return err
	}
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM events WHERE global_position IN (
			SELECT global_position FROM events WHERE stream_id = $1 LIMIT $2)`, string(stream), s.chunk)
		if err != nil {
			return translate("delete stream", err)
		}
		if tag.RowsAffected() < int64(s.chunk) {
			return nil
		}
	}
}

func (s *Store) tombstone(ctx context.Context, stream eventstore.StreamID) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return translate("delete stream", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, lockStreamSQL, string(stream)); err != nil {
		return translate("delete stream", err)
	}
	var owner string
	err = tx.QueryRow(ctx, `DELETE FROM streams WHERE stream_id = $1 RETURNING owner`, string(stream)).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		var deleted bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM tombstones WHERE stream_id = $1)`, string(stream)).Scan(&deleted); err != nil {
			return translate("delete stream", err)
		}
		if !deleted {
			return fmt.Errorf("delete stream %q: %w", stream, eventstore.ErrNotFound)
		}
		return nil
	}
	if err != nil {
		return translate("delete stream", err)
	}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO tombstones (stream_id, owner) VALUES ($1, $2)`, string(stream), owner)
	b.Queue(`DELETE FROM snapshots WHERE stream_id = $1`, string(stream))
	b.Queue(`DELETE FROM stream_blobs WHERE stream_id = $1`, string(stream))
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return translate("delete stream", err)
	}
	return translate("delete stream", tx.Commit(ctx))
}
