package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/eventstore"
)

// MaxFeedLimit bounds one ReadFeed call.
const MaxFeedLimit = 10000

// feedSQL reads one page of the xid8 feed: only events of transactions
// older than every transaction still running are handed out (tx_id <
// pg_snapshot_xmin), so none can commit later below the cursor, and the
// order is (tx_id, global_position), which keeps each stream's order
// because an append's transaction id is assigned while it holds the stream.
//
// The ORDER BY names the table's columns (events.tx_id): a bare tx_id there
// is the output column of that name, the int8 the select list casts it to,
// and ordering by that expression cannot walk the events_feed index, so
// every read sorted all the events after the cursor — a relay catching up
// on a backlog sorted the whole backlog for each page, and a read at the
// tail cost 0.11 ms where the index walk costs 0.03 (EXPLAIN ANALYZE,
// docs/BENCHMARKS.md "Eighth session").
const feedSQL = `SELECT tx_id::text::numeric::int8, global_position, stream_id, version, event_id, type, data, metadata, recorded_at
	FROM events
	WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
		AND (tx_id, global_position) > ($1::text::xid8, $2::bigint)
	ORDER BY events.tx_id, events.global_position LIMIT $3`

// feedPageSQL is feedSQL with, last, the owner of the stream each event
// begins (version 1; NULL for every other event), looked up for the rows of
// the page only: a scalar subquery over the limited page, one primary-key
// lookup per stream begun in it (eventstore.FeedPage.Owners). Written as a
// join of events and streams, the read cost 1.1 ms in the 10-minute soak's
// first half and 3.5 ms in its second (mean per call), against 0.26–0.33 ms
// the session before without the owner (docs/CAPACITY.md, "Eighth
// session"): a join is planned before the LIMIT, for as many rows as the
// cursor parameters might match.
const feedPageSQL = `SELECT e.tx, e.global_position, e.stream_id, e.version, e.event_id, e.type, e.data, e.metadata, e.recorded_at,
		CASE WHEN e.version = 1 THEN (SELECT s.owner FROM streams s WHERE s.stream_id = e.stream_id) END
	FROM (SELECT events.tx_id::text::numeric::int8 AS tx, events.global_position, events.stream_id, events.version, events.event_id,
			events.type, events.data, events.metadata, events.recorded_at
		FROM events
		WHERE events.tx_id < pg_snapshot_xmin(pg_current_snapshot())
			AND (events.tx_id, events.global_position) > ($1::text::xid8, $2::bigint)
		ORDER BY events.tx_id, events.global_position LIMIT $3) AS e
	ORDER BY e.tx, e.global_position`

// committedAfterSQL counts the committed events after the cursor, whatever
// the horizon, up to one more than a page. Sent in the same batch as
// feedSQL but run after it (with a snapshot at least as new), it sees every
// event the page saw plus any the page held back, so a count above the
// page's length means committed events wait: held back behind a
// transaction still running, or committed since the page was read. Either
// way the reader should read again soon. The ORDER BY keeps it on the
// events_feed index: without it the planner picks a sequential scan for the
// LIMIT (0.3 ms on 4,000 events against 0.05 ms). (One statement computing
// page and flag with one snapshot was tried first: ReadFeedPage then took
// 450-690 us against ReadFeed's 80-160 us.)
const committedAfterSQL = `SELECT count(*) FROM (
	SELECT 1 FROM events WHERE (tx_id, global_position) > ($1::text::xid8, $2::bigint)
	ORDER BY tx_id, global_position LIMIT $3 + 1) AS c`

// ReadFeed implements eventstore.Store with the xid8 feed (see feedSQL).
func (s *Store) ReadFeed(ctx context.Context, after eventstore.Cursor, limit int) ([]eventstore.RecordedEvent, eventstore.Cursor, error) {
	if limit <= 0 || limit > MaxFeedLimit {
		return nil, after, &eventstore.InvalidError{Field: "limit", Reason: fmt.Sprintf("%d, want 1..%d", limit, MaxFeedLimit)}
	}
	rows, err := s.pool.Query(ctx, feedSQL, strconv.FormatUint(after.TxID, 10), after.Position, limit)
	if err != nil {
		return nil, after, translate("read feed", err)
	}
	var txs []uint64
	return page(rows, after, &txs, false, nil)
}

// ReadFeedPage implements eventstore.FeedPager: the page of ReadFeed, its
// payloads undecoded, and, in the same round trip, whether committed events
// wait beyond it (committedAfterSQL). A page an append read for this cursor
// and limit (PrefetchFeed) is returned without a read of its own.
func (s *Store) ReadFeedPage(ctx context.Context, after eventstore.Cursor, limit int) (eventstore.FeedPage, error) {
	if limit <= 0 || limit > MaxFeedLimit {
		return eventstore.FeedPage{Next: after}, &eventstore.InvalidError{Field: "limit", Reason: fmt.Sprintf("%d, want 1..%d", limit, MaxFeedLimit)}
	}
	if p, ok := s.prefetch.use(ctx, after, limit); ok {
		return p, nil
	}
	b := &pgx.Batch{}
	queueFeedPage(b, after, limit)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	p, err := readFeedPage(br, after)
	if err != nil {
		return p, err
	}
	if err := br.Close(); err != nil {
		return eventstore.FeedPage{Next: after}, translate("read feed", err)
	}
	return p, nil
}

// queueFeedPage queues ReadFeedPage's two statements: the page
// (feedPageSQL) and the count that says whether more wait
// (committedAfterSQL).
func queueFeedPage(b *pgx.Batch, after eventstore.Cursor, limit int) {
	tx := strconv.FormatUint(after.TxID, 10)
	b.Queue(feedPageSQL, tx, after.Position, limit)
	b.Queue(committedAfterSQL, tx, after.Position, limit)
}

// readFeedPage reads the results of queueFeedPage's statements from br.
func readFeedPage(br pgx.BatchResults, after eventstore.Cursor) (eventstore.FeedPage, error) {
	rows, err := br.Query()
	if err != nil {
		return eventstore.FeedPage{Next: after}, translate("read feed", err)
	}
	var txs []uint64
	owners := map[eventstore.StreamID]string{}
	events, next, err := page(rows, after, &txs, true, owners)
	if err != nil {
		return eventstore.FeedPage{Next: after}, err
	}
	var committed int
	if err := br.QueryRow().Scan(&committed); err != nil {
		return eventstore.FeedPage{Next: after}, translate("read feed", err)
	}
	cursors := make([]eventstore.Cursor, len(events))
	for i, e := range events {
		cursors[i] = eventstore.Cursor{TxID: txs[i], Position: e.GlobalPosition}
	}
	return eventstore.FeedPage{Events: events, Next: next, Cursors: cursors, HeldBack: committed > len(events), Owners: owners}, nil
}

// page scans feed rows and returns them with the cursor after the last,
// their transaction ids in txs; raw leaves their payloads undecoded
// (RecordedEvent.Data).
func page(rows pgx.Rows, after eventstore.Cursor, txs *[]uint64, raw bool, owners map[eventstore.StreamID]string) ([]eventstore.RecordedEvent, eventstore.Cursor, error) {
	events, err := scanEvents(rows, txs, raw, owners)
	if err != nil {
		return nil, after, err
	}
	next := after
	if n := len(events); n > 0 {
		next = eventstore.Cursor{TxID: (*txs)[n-1], Position: events[n-1].GlobalPosition}
	}
	return events, next, nil
}
