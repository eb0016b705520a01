package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roadbook/roadbook/eventstore"
)

// Per-stream order in the xid8 feed (ARCHITECTURE §4) needs one property of
// every append: if append A wrote a stream's versions before append B, A's
// transaction id is smaller than B's. PostgreSQL assigns a transaction its id
// at its first write, and a plain UPDATE (heap_update) takes the id *before*
// it waits for a row that another transaction is changing. So the danger is
// a writer that takes its id, waits behind a concurrent writer of the same
// stream row, and then still succeeds on the row version that writer
// committed: its events would carry higher versions under a lower id. Each
// expected-version kind closes that door in its own way:
//
//   - Every kind first takes the per-stream advisory lock (lockStreamSQL),
//     in its own statement: an advisory lock assigns no transaction id, so
//     the id is taken by the stream write that follows, while the stream is
//     held, and one stream's appends get increasing ids. Deletion takes the
//     same lock, so creation, appends and the tombstone never interleave.
//     An earlier version skipped the lock for Exact and took a row lock for
//     StreamExists, on the argument that a CAS loser always fails on
//     re-check; TestMixedExpectedVersionKindsKeepPerStreamFeedOrder refuted
//     it under -race (a stream's versions came out of the feed inverted in
//     about 1 run in 20), so one lock for every kind it is.
//
// In every case the stream row write is the append's first write; the events
// and blob references are inserted in the same statement only if it
// returned a row.

// lockStreamSQL serialises the appends and the deletion of one stream. An
// advisory lock assigns no transaction id, so the id is taken by the first
// write, while the stream is held. It must be its own statement so the next
// one's snapshot is taken after the lock.
const lockStreamSQL = `SELECT pg_advisory_xact_lock(hashtextextended('s:' || $1, 0))`

// refusalSQL explains an append that wrote nothing. It runs only on refusal,
// after the statement that refused, so it sees the state that made a racer
// lose (the winner has committed by then).
const refusalSQL = `SELECT (SELECT version FROM streams WHERE stream_id = $1), (SELECT owner FROM streams WHERE stream_id = $1),
	EXISTS (SELECT 1 FROM tombstones WHERE stream_id = $1)`

// Parameters of the general append statements, in order:
// $1 stream, $2 k (event count), $3 owner, $4 has summary, $5 title,
// $6 status, $7 summary (jsonb), $8 ids, $9 types, $10 datas, $11 metas,
// then $12 the blob hashes when there are any, then (Exact only) the
// expected version, written $EXPECTED below and numbered when the statement
// is built. Positional, not pgx.NamedArgs: the named rewrite costs client
// CPU on every call.
const summarySet = `title = CASE WHEN $4::bool THEN $5::text ELSE streams.title END,
	status = CASE WHEN $4::bool THEN $6::text ELSE streams.status END,
	summary = CASE WHEN $4::bool THEN $7::jsonb ELSE streams.summary END,
	updated_at = now()`

// newStream is the row a creating append inserts, unless the id was deleted
// (a deleted stream's id is never reused).
const newStream = `INSERT INTO streams (stream_id, version, owner, title, status, summary)
	SELECT $1, $2::bigint, $3::text, CASE WHEN $4::bool THEN $5::text ELSE '' END,
		CASE WHEN $4::bool THEN $6::text ELSE '' END, CASE WHEN $4::bool THEN $7::jsonb ELSE '{}' END
	WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE stream_id = $1)`

// Each stream write has a $UNRECORDED mark in the condition every write it
// makes must pass: nothing for an unkeyed append, the key's guard
// (unrecordedKey) for a keyed one.
const (
	streamNoStream = newStream + ` $UNRECORDED
	ON CONFLICT (stream_id) DO NOTHING
	RETURNING version`
	streamExact = `UPDATE streams SET version = version + $2::bigint, ` + summarySet + `
	WHERE stream_id = $1 AND version = $EXPECTED::bigint AND ($3::text = '' OR owner = $3::text) $UNRECORDED
	RETURNING version`
	streamExists = `UPDATE streams SET version = version + $2::bigint, ` + summarySet + `
	WHERE stream_id = $1 AND ($3::text = '' OR owner = $3::text) $UNRECORDED
	RETURNING version`
	streamAny = newStream + ` $UNRECORDED
	ON CONFLICT (stream_id) DO UPDATE SET version = streams.version + $2::bigint, ` + summarySet + `
	WHERE streams.owner = $3::text
	RETURNING version`
)

// appendSQL builds a general append: the stream row write, then the events
// (unnest of the arrays, versions counted up to the new stream version) and,
// with blobs, the blob references. One row: new version, first and last
// global position, all NULL when the stream write refused. keyed adds the
// idempotency key's record (dedupRecordCTE) to the same statement.
func appendSQL(streamWrite string, blobs, keyed bool) string {
	q := `WITH s AS (` + streamWrite + `),
e AS (
	INSERT INTO events (event_id, stream_id, version, type, data, metadata)
	SELECT u.id, $1, s.version - $2::bigint + u.ord, u.type, u.data::json, u.meta::jsonb
	FROM s, unnest($8::uuid[], $9::text[], $10::text[], $11::text[]) WITH ORDINALITY AS u(id, type, data, meta, ord)
	RETURNING version, global_position
)`
	n := 11 // parameters so far
	if blobs {
		n++
		q += `,
b AS (
	INSERT INTO stream_blobs (stream_id, hash)
	SELECT $1, h FROM s, unnest($` + strconv.Itoa(n) + `::bytea[]) AS h
	ON CONFLICT DO NOTHING
)`
	}
	if strings.Contains(streamWrite, "$EXPECTED") {
		n++
		q = strings.ReplaceAll(q, "$EXPECTED", "$"+strconv.Itoa(n))
	}
	guard := ""
	if keyed {
		guard = unrecordedKey(n)
		q += `,
d AS (` + dedupRecordCTE(n) + `)`
	}
	q = strings.ReplaceAll(q, "$UNRECORDED", guard)
	return q + `
SELECT max(version), min(global_position), max(global_position) FROM e`
}

// unrecordedKey is the condition a keyed append's stream write adds: the
// key has no live record (expires_at after the caller's clock, the
// parameter after the record's four). appendIdempotent sends the key's
// lookup and the append in one batch, after the key's lock, so the append
// itself must not write when the lookup finds the request answered; the
// lookup and this condition read the same committed record, both after
// the lock. The NOT EXISTS reads, it does not write, so the stream write is
// still the transaction's first write.
func unrecordedKey(n int) string {
	return `AND NOT EXISTS (SELECT 1 FROM command_dedup WHERE key = $` + strconv.Itoa(n+1) +
		` AND expires_at > $` + strconv.Itoa(n+5) + `::timestamptz)`
}

// dedupRecordCTE records an idempotency key's answer from the events the
// statement appends (the CTE e): their last version and first and last
// positions; when the stream write refused, e is empty and nothing is
// recorded. Its parameters follow the append's n: key, request hash,
// response, expiry. Part of the append statement itself, where a statement
// of its own (finding the events again by the transaction's id) cost one
// execution more per keyed write.
func dedupRecordCTE(n int) string {
	p := func(i int) string { return "$" + strconv.Itoa(n+i) }
	return `INSERT INTO command_dedup (key, request_hash, response, stream_id, version, first_position, last_position, expires_at)
	SELECT ` + p(1) + `, ` + p(2) + `, ` + p(3) + `, $1, max(version), min(global_position), max(global_position), ` + p(4) + `
	FROM e HAVING count(*) > 0
	ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash, response = excluded.response,
		stream_id = excluded.stream_id, version = excluded.version, first_position = excluded.first_position,
		last_position = excluded.last_position, expires_at = excluded.expires_at`
}

// appendExactOneSQL is the hot path: Exact, one event, no blobs. Scalar
// parameters instead of arrays and the events INSERT as the main statement
// keep the plan small. Parameters: $1 stream, $2 expected version, $3 owner,
// $4 has summary, $5 title, $6 status, $7 summary, $8 id, $9 type, $10 data,
// $11 metadata. One row (new version, global position) or none on refusal.
const appendExactOneSQL = `WITH s AS (
	UPDATE streams SET version = version + 1,
		title = CASE WHEN $4::bool THEN $5::text ELSE streams.title END,
		status = CASE WHEN $4::bool THEN $6::text ELSE streams.status END,
		summary = CASE WHEN $4::bool THEN $7::jsonb ELSE streams.summary END,
		updated_at = now()
	WHERE stream_id = $1 AND version = $2::bigint AND ($3::text = '' OR owner = $3::text)
	RETURNING version
)
INSERT INTO events (event_id, stream_id, version, type, data, metadata)
SELECT $8::uuid, $1, s.version, $9::text, $10::json, $11::jsonb FROM s
RETURNING version, global_position, global_position`

// The general statements, built once, indexed [blobs][keyed].
var (
	appendNoStreamSQL = variants(streamNoStream)
	appendExactSQL    = variants(streamExact)
	appendExistsSQL   = variants(streamExists)
	appendAnySQL      = variants(streamAny)
)

// variants builds a stream write's four general statements, [blobs][keyed].
func variants(streamWrite string) [2][2]string {
	var v [2][2]string
	for b := range 2 {
		for k := range 2 {
			v[b][k] = appendSQL(streamWrite, b == 1, k == 1)
		}
	}
	return v
}

// querier is what an append runs on: the pool (each call is then an
// implicit transaction, one round trip) or an explicit transaction
// (idempotent path).
type querier interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

var (
	_ querier = (*pgxpool.Pool)(nil)
	_ querier = (pgx.Tx)(nil)
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
	if w := s.prefetch.take(); w != nil {
		return s.appendPrefetching(ctx, req, events, w)
	}
	res, err := s.appendOn(ctx, s.pool, req, events)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	s.signal()
	return res, nil
}

// appendOn writes the append on on: the stream's lock statement and the
// append statement, sent together (one round trip); on refusal it asks
// refusalSQL why.
func (s *Store) appendOn(ctx context.Context, on querier, req eventstore.AppendRequest, events []eventstore.EncodedEvent) (eventstore.AppendResult, error) {
	query, args := appendStatement(req, events, s.now())
	version, first, last, err := lockedAppend(ctx, on, string(req.Stream), query, args...)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	if version != nil && first != nil && last != nil {
		return eventstore.AppendResult{Version: *version, FirstPosition: *first, LastPosition: *last}, nil
	}
	return eventstore.AppendResult{}, refusal(ctx, on, req)
}

// summaryArgs returns the summary parameters: whether to set it, title,
// status and data (a JSON object; "{}" when unset).
func summaryArgs(req eventstore.AppendRequest) (bool, string, string, string) {
	if req.Summary == nil {
		return false, "", "", "{}"
	}
	data := "{}"
	if len(req.Summary.Data) > 0 {
		data = string(req.Summary.Data)
	}
	return true, req.Summary.Title, req.Summary.Status, data
}

// appendStatement is the append statement of the request and its
// arguments: appendExactOneSQL (plain parameters, no arrays: the hot path of
// aggregates) for one event at an exact version without blobs or key, else
// the general statement of the request's kind, which with a key records it
// too (dedupRecordCTE). It runs after the stream's lock statement
// (lockStreamSQL), in the same batch.
func appendStatement(req eventstore.AppendRequest, events []eventstore.EncodedEvent, now time.Time) (string, []any) {
	key := req.Idempotency
	if req.Expected.IsExact() && len(events) == 1 && len(req.BlobRefs) == 0 && key == nil {
		e := events[0]
		has, title, status, summary := summaryArgs(req)
		return appendExactOneSQL, []any{string(req.Stream), req.Expected.Version(), req.Owner,
			has, title, status, summary, e.ID, e.Type, string(e.Data), string(e.Metadata)}
	}
	blobs := len(req.BlobRefs) > 0
	var v [2][2]string
	switch {
	case req.Expected.IsNoStream():
		v = appendNoStreamSQL
	case req.Expected.IsExact():
		v = appendExactSQL
	case req.Expected.IsStreamExists():
		v = appendExistsSQL
	default:
		v = appendAnySQL
	}
	query := v[b2i(blobs)][b2i(key != nil)]
	ids := make([][16]byte, len(events))
	types := make([]string, len(events))
	datas := make([]string, len(events))
	metas := make([]string, len(events))
	for i, e := range events {
		ids[i], types[i], datas[i], metas[i] = e.ID, e.Type, string(e.Data), string(e.Metadata)
	}
	has, title, status, summary := summaryArgs(req)
	args := []any{string(req.Stream), int64(len(events)), req.Owner,
		has, title, status, summary, ids, types, datas, metas}
	if blobs {
		args = append(args, req.BlobRefs)
	}
	if req.Expected.IsExact() {
		args = append(args, req.Expected.Version())
	}
	if key != nil {
		args = append(args, key.Key, key.RequestHash, key.Response, key.ExpiresAt, now)
	}
	return query, args
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lockedAppend sends the stream's advisory lock and the append statement as
// one batch (one round trip, one implicit transaction). A statement that
// wrote nothing (CAS lost, stream deleted, owner mismatch) returns nil
// results, and the caller asks refusal why.
func lockedAppend(ctx context.Context, on querier, stream, query string, args ...any) (version, first, last *int64, err error) {
	b := &pgx.Batch{}
	b.Queue(lockStreamSQL, stream)
	b.Queue(query, args...)
	br := on.SendBatch(ctx, b)
	version, first, last, err = readAppended(br, 1, 0)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, nil, nil, translate("append", err)
	}
	return version, first, last, nil
}

// readAppended reads an append's results from its batch: the before
// statements queued ahead of it (BEGIN, locks), its row (nil results when
// the stream write refused, which wrote nothing), and the after statements
// queued behind it (COMMIT). The error is PostgreSQL's, untranslated.
func readAppended(br pgx.BatchResults, before, after int) (version, first, last *int64, err error) {
	for range before {
		if _, err := br.Exec(); err != nil {
			return nil, nil, nil, err
		}
	}
	err = br.QueryRow().Scan(&version, &first, &last)
	if errors.Is(err, pgx.ErrNoRows) {
		version, first, last, err = nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	for range after {
		if _, err := br.Exec(); err != nil {
			return nil, nil, nil, err
		}
	}
	return version, first, last, nil
}

// refusal reads why an append wrote nothing and returns the matching error:
// the stream was deleted, belongs to another owner, or is not at the
// expected version (VersionConflictError with its current version; 0 when it
// does not exist).
func refusal(ctx context.Context, on querier, req eventstore.AppendRequest) error {
	var (
		curVersion *int64
		curOwner   *string
		deleted    bool
	)
	if err := on.QueryRow(ctx, refusalSQL, string(req.Stream)).Scan(&curVersion, &curOwner, &deleted); err != nil {
		return translate("append", err)
	}
	switch {
	case deleted:
		return fmt.Errorf("append to %q: %w", req.Stream, eventstore.ErrStreamDeleted)
	case curOwner != nil && req.Owner != "" && *curOwner != req.Owner:
		return fmt.Errorf("append to %q as %q: %w", req.Stream, req.Owner, eventstore.ErrOwnerMismatch)
	}
	var current int64
	if curVersion != nil {
		current = *curVersion
	}
	return &eventstore.VersionConflictError{Stream: req.Stream, Expected: req.Expected, Current: current}
}
