package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roadbook/roadbook/eventstore"
)

// lockStreamSQL serialises appends and deletion of one stream. An advisory
// lock assigns no transaction id, so the id is taken by the first write,
// while the stream is held: one stream's appends get increasing ids, which is
// what keeps per-stream order in the (tx_id, global_position) feed. It must
// be its own statement so the next one's snapshot is taken after the lock.
const lockStreamSQL = `SELECT pg_advisory_xact_lock(hashtextextended('s:' || $1, 0))`

// The append statement: the stream row write (CAS) is the first write, and
// the events and blob references are inserted only if it returned a row.
// The final SELECT also reports the stream's state before the statement
// (every part of a statement sees the same snapshot), so a refusal needs no
// second query.
const appendSQLHead = `WITH cur AS (SELECT version, owner FROM streams WHERE stream_id = @stream),
tomb AS (SELECT EXISTS (SELECT 1 FROM tombstones WHERE stream_id = @stream) AS deleted),
s AS (`

const appendSQLTail = `),
e AS (
	INSERT INTO events (event_id, stream_id, version, type, data, metadata)
	SELECT u.id, @stream, s.version - @k::bigint + u.ord, u.type, u.data::jsonb, u.meta::jsonb
	FROM s, unnest(@ids::uuid[], @types::text[], @datas::text[], @metas::text[]) WITH ORDINALITY AS u(id, type, data, meta, ord)
	RETURNING global_position
),
b AS (
	INSERT INTO stream_blobs (stream_id, hash)
	SELECT @stream, h FROM s, unnest(@blobs::bytea[]) AS h
	ON CONFLICT DO NOTHING
)
SELECT (SELECT version FROM s), (SELECT min(global_position) FROM e), (SELECT max(global_position) FROM e),
	(SELECT version FROM cur), (SELECT owner FROM cur), (SELECT deleted FROM tomb)`

const summarySet = `title = CASE WHEN @has_summary::bool THEN @title::text ELSE streams.title END,
	status = CASE WHEN @has_summary::bool THEN @status::text ELSE streams.status END,
	summary = CASE WHEN @has_summary::bool THEN @summary::jsonb ELSE streams.summary END,
	updated_at = now()`

var (
	appendNoStreamSQL = appendSQLHead + `INSERT INTO streams (stream_id, version, owner, title, status, summary)
	SELECT @stream, @k::bigint, @owner::text, @title::text, @status::text, @summary::jsonb WHERE NOT (SELECT deleted FROM tomb)
	ON CONFLICT (stream_id) DO NOTHING
	RETURNING version` + appendSQLTail

	appendExactSQL = appendSQLHead + `UPDATE streams SET version = version + @k::bigint, ` + summarySet + `
	WHERE stream_id = @stream AND version = @expected::bigint AND (@owner::text = '' OR owner = @owner::text)
	RETURNING version` + appendSQLTail

	appendExistsSQL = appendSQLHead + `UPDATE streams SET version = version + @k::bigint, ` + summarySet + `
	WHERE stream_id = @stream AND (@owner::text = '' OR owner = @owner::text)
	RETURNING version` + appendSQLTail

	appendAnySQL = appendSQLHead + `INSERT INTO streams (stream_id, version, owner, title, status, summary)
	SELECT @stream, @k::bigint, @owner::text, @title::text, @status::text, @summary::jsonb WHERE NOT (SELECT deleted FROM tomb)
	ON CONFLICT (stream_id) DO UPDATE SET version = streams.version + @k::bigint, ` + summarySet + `
	WHERE streams.owner = @owner::text
	RETURNING version` + appendSQLTail
)

// batcher is what an append runs on: the pool (the batch is then an implicit
// transaction, one round trip) or an explicit transaction (idempotent path).
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

var (
	_ batcher = (*pgxpool.Pool)(nil)
	_ batcher = (pgx.Tx)(nil)
)

// Append implements eventstore.Store.
func (s *Store) Append(ctx context.Context, req eventstore.AppendRequest) (eventstore.AppendResult, error) {
	events, err := req.Validate()
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	if req.Idempotency != nil {
		return s.appendIdempotent(ctx, req, events)
	}
	res, err := s.appendOn(ctx, s.pool, req, events)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	s.signal()
	return res, nil
}

// appendOn sends the lock and the append statement as one batch.
func (s *Store) appendOn(ctx context.Context, on batcher, req eventstore.AppendRequest, events []eventstore.EncodedEvent) (eventstore.AppendResult, error) {
	var query string
	switch {
	case req.Expected.IsNoStream():
		query = appendNoStreamSQL
	case req.Expected.IsExact():
		query = appendExactSQL
	case req.Expected.IsStreamExists():
		query = appendExistsSQL
	default:
		query = appendAnySQL
	}
	ids := make([][16]byte, len(events))
	types := make([]string, len(events))
	datas := make([]string, len(events))
	metas := make([]string, len(events))
	for i, e := range events {
		ids[i], types[i], datas[i], metas[i] = e.ID, e.Type, string(e.Data), string(e.Metadata)
	}
	blobs := req.BlobRefs
	if blobs == nil {
		blobs = [][]byte{}
	}
	args := pgx.NamedArgs{
		"stream": string(req.Stream), "k": int64(len(events)), "owner": req.Owner,
		"expected": req.Expected.Version(), "has_summary": req.Summary != nil,
		"title": "", "status": "", "summary": "{}",
		"ids": ids, "types": types, "datas": datas, "metas": metas, "blobs": blobs,
	}
	if req.Summary != nil {
		args["title"], args["status"] = req.Summary.Title, req.Summary.Status
		if len(req.Summary.Data) > 0 {
			args["summary"] = string(req.Summary.Data)
		}
	}
	b := &pgx.Batch{}
	b.Queue(lockStreamSQL, string(req.Stream))
	b.Queue(query, args)
	br := on.SendBatch(ctx, b)
	var (
		newVersion, first, last, curVersion *int64
		curOwner                            *string
		deleted                             bool
	)
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return eventstore.AppendResult{}, translate("append", err)
	}
	if err := br.QueryRow().Scan(&newVersion, &first, &last, &curVersion, &curOwner, &deleted); err != nil {
		_ = br.Close()
		return eventstore.AppendResult{}, translate("append", err)
	}
	if err := br.Close(); err != nil {
		return eventstore.AppendResult{}, translate("append", err)
	}
	if newVersion != nil && first != nil && last != nil {
		return eventstore.AppendResult{Version: *newVersion, FirstPosition: *first, LastPosition: *last}, nil
	}
	switch {
	case deleted:
		return eventstore.AppendResult{}, fmt.Errorf("append to %q: %w", req.Stream, eventstore.ErrStreamDeleted)
	case curOwner != nil && req.Owner != "" && *curOwner != req.Owner:
		return eventstore.AppendResult{}, fmt.Errorf("append to %q as %q: %w", req.Stream, req.Owner, eventstore.ErrOwnerMismatch)
	}
	var current int64
	if curVersion != nil {
		current = *curVersion
	}
	return eventstore.AppendResult{}, &eventstore.VersionConflictError{Stream: req.Stream, Expected: req.Expected, Current: current}
}

// appendIdempotent runs the append in an explicit transaction that first
// locks the idempotency key, so concurrent callers with one key queue up:
// the first executes, the others find its answer. Failed appends record
// nothing, so a retry after a conflict runs again.
func (s *Store) appendIdempotent(ctx context.Context, req eventstore.AppendRequest, events []eventstore.EncodedEvent) (eventstore.AppendResult, error) {
	key := req.Idempotency
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return eventstore.AppendResult{}, translate("append", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('k:' || $1, 0))`, key.Key); err != nil {
		return eventstore.AppendResult{}, translate("append", err)
	}
	var (
		hash, response []byte
		res            eventstore.AppendResult
		expires        time.Time
	)
	err = tx.QueryRow(ctx, `SELECT request_hash, response, version, first_position, last_position, expires_at
		FROM command_dedup WHERE key = $1`, key.Key).Scan(&hash, &response, &res.Version, &res.FirstPosition, &res.LastPosition, &expires)
	switch {
	case err == nil && expires.After(s.now()):
		if !bytes.Equal(hash, key.RequestHash) {
			return eventstore.AppendResult{}, fmt.Errorf("idempotency key %q: %w", key.Key, eventstore.ErrIdempotencyMismatch)
		}
		res.Replayed, res.Response = true, response
		return res, nil
	case err == nil, errors.Is(err, pgx.ErrNoRows):
		// An expired key, or none: execute.
	default:
		return eventstore.AppendResult{}, translate("append", err)
	}
	res, err = s.appendOn(ctx, tx, req, events)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO command_dedup (key, request_hash, response, stream_id, version, first_position, last_position, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash, response = excluded.response,
			stream_id = excluded.stream_id, version = excluded.version, first_position = excluded.first_position,
			last_position = excluded.last_position, expires_at = excluded.expires_at`,
		key.Key, key.RequestHash, key.Response, string(req.Stream), res.Version, res.FirstPosition, res.LastPosition, key.ExpiresAt); err != nil {
		return eventstore.AppendResult{}, translate("append", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return eventstore.AppendResult{}, translate("append", err)
	}
	s.signal()
	res.Response = key.Response
	return res, nil
}
