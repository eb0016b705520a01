package postgres

import (
	"context"
	"time"

	"github.com/roadbook/roadbook/eventstore"
)

// Housekeep implements eventstore.Store: it removes idempotency keys expired
// at now and blobs no stream references that are older than the blob grace
// period, each in chunks of their own short transactions (long ones would
// hold the feed back).
func (s *Store) Housekeep(ctx context.Context, now time.Time) (eventstore.HousekeepingReport, error) {
	var rep eventstore.HousekeepingReport
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM command_dedup WHERE key IN (
			SELECT key FROM command_dedup WHERE expires_at <= $1 LIMIT $2)`, now, s.chunk)
		if err != nil {
			return rep, translate("housekeep keys", err)
		}
		rep.IdempotencyKeys += int(tag.RowsAffected())
		if tag.RowsAffected() < int64(s.chunk) {
			break
		}
	}
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM blobs WHERE hash IN (
			SELECT b.hash FROM blobs b
			WHERE b.created_at < $1 AND NOT EXISTS (SELECT 1 FROM stream_blobs r WHERE r.hash = b.hash)
			LIMIT $2)`, now.Add(-s.blobGrace), s.chunk)
		if err != nil {
			return rep, translate("housekeep blobs", err)
		}
		rep.Blobs += int(tag.RowsAffected())
		if tag.RowsAffected() < int64(s.chunk) {
			break
		}
	}
	return rep, nil
}
