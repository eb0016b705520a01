package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A bound is an append reduced to its SQL, with its parameters encoded
// before the clock runs (no validation, no protojson, no UUIDv7 on the
// clock: the Go client shares the two cores with the server), measured
// beside the same raw INSERT baseline. Together they show what each
// invariant costs the server, hence how close to the baseline any design
// that keeps it can come (-bounds; docs/BENCHMARKS.md, "Event store: the
// bound").
type bound struct {
	name string
	// keeps names the invariants the statement still guarantees.
	keeps string
	// tables prefixes the bound's own copies of streams and events;
	// indexes are the events copy's.
	tables  string
	indexes []string
	// op appends one event to writer w's stream at version v (the
	// stream's version before it); ok is false when nothing was written.
	op func(ctx context.Context, pool *pgxpool.Pool, w int, stream string, v int64, data, meta string) (ok bool, err error)
}

// lockSQL, exactOneSQL: the statements of postgres/append.go's hot path
// (lockStreamSQL, appendExactOneSQL), copied so the bound measures exactly
// them with the client's work taken away.
const (
	lockSQL     = `SELECT pg_advisory_xact_lock(hashtextextended('s:' || $1, 0))`
	exactOneSQL = `WITH s AS (
	UPDATE streams SET version = version + 1,
		title = CASE WHEN $4::bool THEN $5::text ELSE streams.title END,
		status = CASE WHEN $4::bool THEN $6::text ELSE streams.status END,
		summary = CASE WHEN $4::bool THEN $7::jsonb ELSE streams.summary END,
		updated_at = now()
	WHERE stream_id = $1 AND version = $2::bigint AND ($3::text = '' OR owner = $3::text)
	RETURNING version
)
INSERT INTO events (event_id, stream_id, version, type, data, metadata)
SELECT $8::uuid, $1, s.version, $9::text, $10::jsonb, $11::jsonb FROM s
RETURNING version, global_position, global_position`
)

// Index sets of the events copies the bounds write to. The store's events
// table has all four: pk (global order key), eventID (a duplicate event id
// is refused: idempotent workers), streamVersion (one event per stream
// version; ReadStream), feed (the relay's (tx_id, global_position) scan).
const (
	idxPK            = `ALTER TABLE %[1]s ADD PRIMARY KEY (global_position)`
	idxEventID       = `CREATE UNIQUE INDEX ON %[1]s (event_id)`
	idxStreamVersion = `CREATE UNIQUE INDEX ON %[1]s (stream_id, version)`
	idxFeed          = `CREATE INDEX ON %[1]s (tx_id, global_position)`
	// idxFeedUnique is the feed index as the table's one unique key on the
	// position: global_position comes from an identity column, so it is
	// unique by generation; the constraint then guards (tx_id, position).
	idxFeedUnique = `CREATE UNIQUE INDEX ON %[1]s (tx_id, global_position)`
)

func bounds() []bound {
	locked := func(tables string) func(ctx context.Context, pool *pgxpool.Pool, w int, stream string, v int64, data, meta string) (bool, error) {
		q := onTables(exactOneSQL, tables)
		return func(ctx context.Context, pool *pgxpool.Pool, w int, stream string, v int64, data, meta string) (bool, error) {
			b := &pgx.Batch{}
			b.Queue(lockSQL, stream)
			b.Queue(q, stream, v, "", false, "", "", "{}", uuid.New(), "bench.Event", data, meta)
			return execBatch(ctx, pool, b)
		}
	}
	cas := func(tables string) func(ctx context.Context, pool *pgxpool.Pool, w int, stream string, v int64, data, meta string) (bool, error) {
		q := onTables(exactOneSQL, tables)
		return func(ctx context.Context, pool *pgxpool.Pool, w int, stream string, v int64, data, meta string) (bool, error) {
			b := &pgx.Batch{}
			b.Queue(q, stream, v, "", false, "", "", "{}", uuid.New(), "bench.Event", data, meta)
			return execBatch(ctx, pool, b)
		}
	}
	eventsOnly := func(tables string) func(ctx context.Context, pool *pgxpool.Pool, w int, stream string, v int64, data, meta string) (bool, error) {
		q := onTables(`INSERT INTO events (event_id, stream_id, version, type, data, metadata) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)`, tables)
		return func(ctx context.Context, pool *pgxpool.Pool, w int, stream string, v int64, data, meta string) (bool, error) {
			_, err := pool.Exec(ctx, q, uuid.New(), stream, v+1, "bench.Event", data, meta)
			return err == nil, err
		}
	}
	return []bound{
		{name: "sql-as-stored", tables: "b1", indexes: []string{idxPK, idxEventID, idxStreamVersion, idxFeed}, op: locked("b1"),
			keeps: "every invariant: stream lock, version CAS and owner on the stream row, four indexes"},
		{name: "cas-no-lock", tables: "b2", indexes: []string{idxPK, idxEventID, idxStreamVersion, idxFeed}, op: cas("b2"),
			keeps: "no advisory lock statement: per-stream feed order then rests on every kind being a CAS (see docs/BENCHMARKS.md)"},
		{name: "cas-three-indexes", tables: "b3", indexes: []string{idxEventID, idxStreamVersion, idxFeedUnique}, op: cas("b3"),
			keeps: "no lock, and the feed index as the only key on the position (unique by its identity column): every invariant storetest checks, if CAS-only ordering holds"},
		{name: "cas-no-event-id", tables: "b4", indexes: []string{idxStreamVersion, idxFeedUnique}, op: cas("b4"),
			keeps: "as cas-three-indexes without the unique event id: a replayed derived id is no longer refused"},
		{name: "events-only", tables: "b5", indexes: []string{idxPK, idxEventID, idxStreamVersion, idxFeed}, op: eventsOnly("b5"),
			keeps: "no stream row write at all (no head version, owner or summary kept): the events insert with its four indexes"},
		{name: "events-one-index", tables: "b6", indexes: []string{idxPK}, op: eventsOnly("b6"),
			keeps: "the events insert with only its primary key: no duplicate refusal, no per-stream read, no feed"},
	}
}

// onTables points a statement at a bound's copies of streams and events.
func onTables(q, tables string) string {
	q = strings.ReplaceAll(q, "INTO events", "INTO "+tables+"_events")
	q = strings.ReplaceAll(q, "UPDATE streams", "UPDATE "+tables+"_streams")
	return strings.ReplaceAll(q, "streams.", tables+"_streams.")
}

// create makes the bound's copies: the store's tables' columns and
// defaults, with the bound's indexes.
func (bd bound) create(ctx context.Context, pool *pgxpool.Pool) error {
	stmts := []string{
		fmt.Sprintf(`CREATE TABLE %s_streams (LIKE streams INCLUDING DEFAULTS INCLUDING CONSTRAINTS, PRIMARY KEY (stream_id))`, bd.tables),
		fmt.Sprintf(`CREATE TABLE %s_events (global_position bigint GENERATED ALWAYS AS IDENTITY, tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
			event_id uuid NOT NULL, stream_id text NOT NULL, version bigint NOT NULL, type text NOT NULL, data jsonb NOT NULL,
			metadata jsonb NOT NULL DEFAULT '{}', recorded_at timestamptz NOT NULL DEFAULT now())`, bd.tables),
	}
	for _, ix := range bd.indexes {
		stmts = append(stmts, fmt.Sprintf(ix, bd.tables+"_events"))
	}
	for _, q := range stmts {
		if _, err := pool.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// execBatch runs b (one round trip, one implicit transaction) and reports
// whether its last statement returned a row (the append wrote).
func execBatch(ctx context.Context, pool *pgxpool.Pool, b *pgx.Batch) (bool, error) {
	br := pool.SendBatch(ctx, b)
	for i := 0; i < b.Len()-1; i++ {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return false, err
		}
	}
	var version, first, last int64
	err := br.QueryRow().Scan(&version, &first, &last)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == pgx.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// runBounds measures every bound for the many-streams figure (16 writers on
// 16 streams), each beside the baseline in alternating rounds, and prints
// one line per bound.
func runBounds(ctx context.Context, pool *pgxpool.Pool, data, meta string, cfg figureConfig) error {
	for _, bd := range bounds() {
		if err := bd.create(ctx, pool); err != nil {
			return fmt.Errorf("bound %s: %w", bd.name, err)
		}
		const writers = 16
		streams := make([]string, writers)
		versions := make([]int64, writers)
		for i := range streams {
			streams[i] = fmt.Sprintf("bound-%s-%d", bd.name, i)
			if _, err := pool.Exec(ctx, `INSERT INTO `+bd.tables+`_streams (stream_id, version, owner) VALUES ($1, 0, 'bench')`, streams[i]); err != nil {
				return fmt.Errorf("bound %s: %w", bd.name, err)
			}
		}
		op := func(ctx context.Context, w int) error {
			ok, err := bd.op(ctx, pool, w, streams[w], versions[w], data, meta)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("bound %s: stream %s refused version %d", bd.name, streams[w], versions[w])
			}
			versions[w]++
			return nil
		}
		insert := func(ctx context.Context, w int) error {
			_, err := pool.Exec(ctx, `INSERT INTO baseline (stream_id, data) VALUES ($1, $2::jsonb)`, streams[w], data)
			return err
		}
		f, err := alternate(ctx, writers, cfg, insert, op)
		if err != nil {
			return fmt.Errorf("bound %s: %w", bd.name, err)
		}
		fmt.Printf("eventstore bound %s appends_per_s=%.0f baseline_per_s=%.0f ratio=%.2f %s\n", bd.name, f.rate, f.base, f.rate/f.base, f.cpuLine())
		fmt.Fprintf(os.Stderr, "  %s keeps: %s\n", bd.name, bd.keeps)
	}
	return nil
}
