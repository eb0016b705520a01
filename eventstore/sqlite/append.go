package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/roadbook/roadbook/eventstore"
)

// Append implements eventstore.Store. The request is validated and its
// payloads encoded before the write lock is taken, so the single writer only
// ever waits on SQL.
func (s *Store) Append(ctx context.Context, req eventstore.AppendRequest) (eventstore.AppendResult, error) {
	evs, err := req.Validate()
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	now := s.cfg.now()
	var res eventstore.AppendResult
	err = s.write(ctx, func(tx *sql.Tx) error {
		var err error
		res, err = appendTx(ctx, tx, req, evs, now)
		return err
	})
	if err != nil {
		return eventstore.AppendResult{}, translate(ctx, err)
	}
	if !res.Replayed {
		s.notify.Signal()
	}
	return res, nil
}

// appendTx is one append inside the write transaction: idempotency replay,
// tombstone, expected version and owner checks, then the stream row first,
// the events, blob references and the idempotency record.
func appendTx(ctx context.Context, tx *sql.Tx, req eventstore.AppendRequest, evs []eventstore.EncodedEvent, now time.Time) (eventstore.AppendResult, error) {
	var none eventstore.AppendResult
	if k := req.Idempotency; k != nil {
		res, found, err := replay(ctx, tx, k, now)
		if err != nil || found {
			return res, err
		}
	}
	// One statement reads the tombstone and the stream head.
	var (
		deleted bool
		version sql.NullInt64
		owner   sql.NullString
	)
	err := tx.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM tombstones WHERE stream_id = ?1),
		(SELECT version FROM streams WHERE stream_id = ?1),
		(SELECT owner FROM streams WHERE stream_id = ?1)`, string(req.Stream)).Scan(&deleted, &version, &owner)
	if err != nil {
		return none, err
	}
	if deleted {
		return none, fmt.Errorf("%w: %q", eventstore.ErrStreamDeleted, req.Stream)
	}
	exists, current := version.Valid, version.Int64
	if !expectationHolds(req.Expected, exists, current) {
		return none, &eventstore.VersionConflictError{Stream: req.Stream, Expected: req.Expected, Current: current}
	}
	// Validation guarantees an owner whenever the append may create the
	// stream; on an existing stream an empty owner means "not checked".
	if exists && req.Owner != "" && req.Owner != owner.String {
		return none, fmt.Errorf("%w: stream %q is not owned by %q", eventstore.ErrOwnerMismatch, req.Stream, req.Owner)
	}

	next := current + int64(len(evs))
	ts := micros(now)
	if err := writeStreamRow(ctx, tx, req, exists, current, next, ts); err != nil {
		return none, err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO events (event_id, stream_id, version, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return none, err
	}
	defer ins.Close()
	res := eventstore.AppendResult{Version: next}
	for i, ev := range evs {
		r, err := ins.ExecContext(ctx, ev.ID.String(), string(req.Stream), current+int64(i)+1, ev.Type, ev.Data, ev.Metadata, ts)
		if err != nil {
			return none, err
		}
		pos, err := r.LastInsertId()
		if err != nil {
			return none, err
		}
		if i == 0 {
			res.FirstPosition = pos
		}
		res.LastPosition = pos
	}
	for _, h := range req.BlobRefs {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO stream_blobs (stream_id, hash) VALUES (?, ?)`, string(req.Stream), h); err != nil {
			return none, err
		}
	}
	if k := req.Idempotency; k != nil {
		res.Response = k.Response
		_, err := tx.ExecContext(ctx, `
			INSERT INTO command_dedup (key, request_hash, stream_id, version, first_position, last_position, response, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET
				request_hash = excluded.request_hash, stream_id = excluded.stream_id, version = excluded.version,
				first_position = excluded.first_position, last_position = excluded.last_position,
				response = excluded.response, expires_at = excluded.expires_at`,
			k.Key, k.RequestHash, string(req.Stream), res.Version, res.FirstPosition, res.LastPosition, k.Response, micros(k.ExpiresAt))
		if err != nil {
			return none, err
		}
	}
	return res, nil
}

// querier is what replay reads on: the write transaction (Append) or the
// read pool (LookupIdempotency).
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// replay answers an append whose idempotency key is already recorded and
// not yet expired; found is false when the append must run.
func replay(ctx context.Context, tx querier, k *eventstore.Idempotency, now time.Time) (eventstore.AppendResult, bool, error) {
	var (
		hash    []byte
		res     eventstore.AppendResult
		expires int64
	)
	err := tx.QueryRowContext(ctx, `SELECT request_hash, version, first_position, last_position, response, expires_at FROM command_dedup WHERE key = ?`, k.Key).
		Scan(&hash, &res.Version, &res.FirstPosition, &res.LastPosition, &res.Response, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return res, false, nil
	case err != nil:
		return res, false, err
	case expires <= micros(now):
		return res, false, nil // expired: the append runs again and overwrites the record
	case !bytes.Equal(hash, k.RequestHash):
		return eventstore.AppendResult{}, false, fmt.Errorf("%w: key %q", eventstore.ErrIdempotencyMismatch, k.Key)
	}
	res.Replayed = true
	return res, true, nil
}

func expectationHolds(e eventstore.ExpectedVersion, exists bool, current int64) bool {
	switch {
	case e.IsNoStream():
		return !exists
	case e.IsExact():
		return exists && current == e.Version()
	case e.IsStreamExists():
		return exists
	default: // Any; validation refused every other kind
		return true
	}
}

// writeStreamRow is the first write of every append: the version
// compare-and-swap on the stream row (and its summary), or its creation.
func writeStreamRow(ctx context.Context, tx *sql.Tx, req eventstore.AppendRequest, exists bool, current, next, ts int64) error {
	if !exists {
		var title, status, data string
		data = "{}"
		if sm := req.Summary; sm != nil {
			title, status = sm.Title, sm.Status
			if len(bytes.TrimSpace(sm.Data)) > 0 {
				data = string(sm.Data)
			}
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO streams (stream_id, version, owner, title, status, summary, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, json(?), ?, ?)`,
			string(req.Stream), next, req.Owner, title, status, data, ts, ts)
		return err
	}
	var r sql.Result
	var err error
	if sm := req.Summary; sm != nil {
		data := "{}"
		if len(bytes.TrimSpace(sm.Data)) > 0 {
			data = string(sm.Data)
		}
		r, err = tx.ExecContext(ctx, `
			UPDATE streams SET version = ?, updated_at = ?, title = ?, status = ?, summary = json(?)
			WHERE stream_id = ? AND version = ?`,
			next, ts, sm.Title, sm.Status, data, string(req.Stream), current)
	} else {
		r, err = tx.ExecContext(ctx, `UPDATE streams SET version = ?, updated_at = ? WHERE stream_id = ? AND version = ?`,
			next, ts, string(req.Stream), current)
	}
	if err != nil {
		return err
	}
	if n, err := r.RowsAffected(); err != nil || n != 1 {
		// Cannot happen under the single writer; refuse rather than write
		// events above a version someone else moved.
		return errors.Join(err, &eventstore.VersionConflictError{Stream: req.Stream, Expected: req.Expected, Current: current})
	}
	return nil
}
