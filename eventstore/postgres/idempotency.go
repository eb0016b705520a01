package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/eventstore"
)

// LookupIdempotency implements eventstore.Store: one read of the key's
// record, without the key's lock. A first execution still in flight is a
// miss; the caller's append then queues on the key's lock (appendIdempotent)
// and is answered from the record that execution commits.
func (s *Store) LookupIdempotency(ctx context.Context, key string, requestHash []byte) (eventstore.AppendResult, error) {
	if err := eventstore.ValidateIdempotencyLookup(key, requestHash); err != nil {
		return eventstore.AppendResult{}, err
	}
	var (
		hash    []byte
		res     eventstore.AppendResult
		expires time.Time
	)
	err := s.pool.QueryRow(ctx, `SELECT request_hash, response, version, first_position, last_position, expires_at
		FROM command_dedup WHERE key = $1`, key).Scan(&hash, &res.Response, &res.Version, &res.FirstPosition, &res.LastPosition, &expires)
	switch {
	case errors.Is(err, pgx.ErrNoRows), err == nil && !expires.After(s.now()):
		return eventstore.AppendResult{}, fmt.Errorf("idempotency key %q: %w", key, eventstore.ErrNotFound)
	case err != nil:
		return eventstore.AppendResult{}, translate("lookup idempotency key", err)
	case !bytes.Equal(hash, requestHash):
		return eventstore.AppendResult{}, fmt.Errorf("idempotency key %q: %w", key, eventstore.ErrIdempotencyMismatch)
	}
	res.Replayed = true
	return res, nil
}
