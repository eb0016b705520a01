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
	err := s.pool.QueryRow(ctx, dedupLookupSQL, key).Scan(&hash, &res.Response, &res.Version, &res.FirstPosition, &res.LastPosition, &expires)
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

// dedupLookupSQL reads the record of an idempotency key.
const dedupLookupSQL = `SELECT request_hash, response, version, first_position, last_position, expires_at
	FROM command_dedup WHERE key = $1`

// appendIdempotent runs the append in an explicit transaction that first
// locks the idempotency key, so concurrent callers with one key queue up:
// the first executes, the others find its answer. Failed appends record
// nothing, so a retry after a conflict runs again. Nothing here writes
// before the append's own stream row write, so the transaction id is still
// taken where the ordering argument in append.go says.
//
// One round trip, a pipelined batch on one connection: BEGIN, the key's
// lock, its record, the stream's lock, the append with the key's record in
// the same statement (dedupRecordCTE), and COMMIT. The append writes only
// when the key has no live record (unrecordedKey), the condition the lookup
// before it is judged by here, so a replay appends nothing and is answered
// from the record. Two round trips before (the lookup, then the append only
// when it found nothing; six when each statement went alone): a keyed write
// is about a fifth of the soak's appends, and each round trip wakes a
// PostgreSQL backend, which cost it more CPU than the statements did
// (docs/CAPACITY.md §4).
func (s *Store) appendIdempotent(ctx context.Context, req eventstore.AppendRequest, events []eventstore.EncodedEvent) (eventstore.AppendResult, error) {
	key := req.Idempotency
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return eventstore.AppendResult{}, translate("append", err)
	}
	// A connection left inside the transaction (an error below) is closed
	// by the pool on release, never reused mid-transaction.
	defer c.Release()
	rollback := func() { _, _ = c.Exec(context.WithoutCancel(ctx), "ROLLBACK") }

	// PostgreSQL keeps microseconds: the guard and live judge one instant.
	now := s.now().Truncate(time.Microsecond)
	query, args := appendStatement(req, events, now)
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended('k:' || $1, 0))`, key.Key)
	b.Queue(dedupLookupSQL, key.Key)
	b.Queue(lockStreamSQL, string(req.Stream))
	b.Queue(query, args...)
	b.Queue("COMMIT")
	br := c.SendBatch(ctx, b)
	recorded, appended, err := readKeyedBatch(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		rollback()
		return eventstore.AppendResult{}, translate("append", err)
	}
	if recorded.live(now) {
		// The append wrote nothing (unrecordedKey): the key answers.
		if !bytes.Equal(recorded.hash, key.RequestHash) {
			return eventstore.AppendResult{}, fmt.Errorf("idempotency key %q: %w", key.Key, eventstore.ErrIdempotencyMismatch)
		}
		res := recorded.result
		res.Replayed, res.Response = true, recorded.response
		return res, nil
	}
	if appended == nil {
		return eventstore.AppendResult{}, refusal(ctx, s.pool, req)
	}
	s.signal()
	appended.Response = key.Response
	return *appended, nil
}

// keyRecord is an idempotency key's record as the lookup read it; found is
// false when the key has none.
type keyRecord struct {
	found          bool
	hash, response []byte
	expires        time.Time
	result         eventstore.AppendResult
}

// live reports whether the record still answers requests at now.
func (k keyRecord) live(now time.Time) bool { return k.found && k.expires.After(now) }

// readKeyedBatch reads appendIdempotent's batch in order: the key's record
// (found false when none) and the append's result (nil when the stream
// write refused or the key's guard held it back).
func readKeyedBatch(br pgx.BatchResults) (keyRecord, *eventstore.AppendResult, error) {
	var rec keyRecord
	for range 2 { // BEGIN, the key's lock
		if _, err := br.Exec(); err != nil {
			return rec, nil, err
		}
	}
	err := br.QueryRow().Scan(&rec.hash, &rec.response, &rec.result.Version, &rec.result.FirstPosition, &rec.result.LastPosition, &rec.expires)
	switch {
	case err == nil:
		rec.found = true
	case !errors.Is(err, pgx.ErrNoRows):
		return rec, nil, err
	}
	// The stream's lock, the append, and COMMIT: an empty transaction when
	// nothing was appended.
	version, first, last, err := readAppended(br, 1, 1)
	if err != nil {
		return rec, nil, err
	}
	if version == nil || first == nil || last == nil {
		return rec, nil, nil
	}
	return rec, &eventstore.AppendResult{Version: *version, FirstPosition: *first, LastPosition: *last}, nil
}
