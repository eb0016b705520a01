package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/roadbook/roadbook/eventstore"
)

// DeleteStream implements eventstore.Store: events, snapshots, blob
// references and the stream row go in one transaction that also writes the
// tombstone. The blobs themselves are collected by Housekeep once nothing
// references them. Event positions are never reused (AUTOINCREMENT), so feed
// cursors past the deleted events stay valid. Deleting a deleted stream
// again succeeds (a retry after a lost answer); an unknown one is
// ErrNotFound.
func (s *Store) DeleteStream(ctx context.Context, stream eventstore.StreamID) error {
	if err := stream.Validate(); err != nil {
		return err
	}
	now := micros(s.cfg.now())
	err := s.write(ctx, func(tx *sql.Tx) error { return deleteStreamTx(ctx, tx, stream, now) })
	if err != nil {
		return translate(ctx, err)
	}
	s.notify.Signal()
	return nil
}

func deleteStreamTx(ctx context.Context, tx *sql.Tx, stream eventstore.StreamID, now int64) error {
	var one int
	switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM tombstones WHERE stream_id = ?`, string(stream)).Scan(&one); {
	case err == nil:
		return nil // already deleted: deleting is idempotent, so a retried delete succeeds
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM streams WHERE stream_id = ?`, string(stream)).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: stream %q", eventstore.ErrNotFound, stream)
	case err != nil:
		return err
	}
	for _, q := range []string{
		`DELETE FROM events WHERE stream_id = ?`,
		`DELETE FROM snapshots WHERE stream_id = ?`,
		`DELETE FROM stream_blobs WHERE stream_id = ?`,
		`DELETE FROM streams WHERE stream_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, string(stream)); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO tombstones (stream_id, deleted_at) VALUES (?, ?)`, string(stream), now)
	return err
}
