package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/roadbook/roadbook/eventstore"
)

// HousekeepChunk is how many rows one housekeeping transaction removes; the
// writer is released between chunks so appends never wait behind a long
// cleanup.
const HousekeepChunk = 500

// Housekeep implements eventstore.Store: idempotency keys whose ExpiresAt is
// at or before now, then blobs that no stream references and that were
// stored before now minus the blob grace period (WithBlobGrace).
func (s *Store) Housekeep(ctx context.Context, now time.Time) (eventstore.HousekeepingReport, error) {
	if now.IsZero() {
		return eventstore.HousekeepingReport{}, invalid("now", "zero time")
	}
	var rep eventstore.HousekeepingReport
	n, err := s.deleteInChunks(ctx, `
		DELETE FROM command_dedup WHERE key IN (
			SELECT key FROM command_dedup WHERE expires_at <= ? LIMIT ?)`, micros(now))
	rep.IdempotencyKeys = n
	if err != nil {
		return rep, translate(ctx, err)
	}
	n, err = s.deleteInChunks(ctx, `
		DELETE FROM blobs WHERE hash IN (
			SELECT b.hash FROM blobs AS b
			WHERE b.created_at < ? AND NOT EXISTS (SELECT 1 FROM stream_blobs AS r WHERE r.hash = b.hash)
			LIMIT ?)`, micros(now.Add(-s.cfg.blobGrace)))
	rep.Blobs = n
	return rep, translate(ctx, err)
}

// deleteInChunks runs a DELETE bounded by LIMIT (its last parameter) until
// it removes fewer than a chunk, one write transaction per chunk.
func (s *Store) deleteInChunks(ctx context.Context, q string, arg any) (int, error) {
	total := 0
	for {
		var n int64
		err := s.write(ctx, func(tx *sql.Tx) error {
			r, err := tx.ExecContext(ctx, q, arg, HousekeepChunk)
			if err != nil {
				return err
			}
			n, err = r.RowsAffected()
			return err
		})
		if err != nil {
			return total, err
		}
		total += int(n)
		if n < HousekeepChunk {
			return total, nil
		}
	}
}
