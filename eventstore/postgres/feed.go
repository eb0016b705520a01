package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/eventstore"
)

// MaxFeedLimit bounds one ReadFeed call.
const MaxFeedLimit = 10000

// feedSQL reads one page of the xid8 feed and, in the same statement (so
// with the same snapshot), whether committed events are held back: only
// events of transactions older than every transaction still running are
// handed out (tx_id < pg_snapshot_xmin), so none can commit later below the
// cursor, and the order is (tx_id, global_position), which keeps each
// stream's order because an append's transaction id is assigned while it
// holds the stream. An event this snapshot sees with tx_id at or above the
// horizon has committed but waits behind an older transaction: that is the
// last column, an uncorrelated InitPlan probing events_feed once (the
// function, not a CTE, keeps it an index condition; a join with a CTE made
// it a sequential scan). The LEFT JOIN yields one row of NULLs when the page
// is empty, so the flag comes back either way.
const feedSQL = `SELECT p.tx, p.global_position, p.stream_id, p.version, p.event_id, p.type, p.data, p.metadata, p.recorded_at,
	EXISTS (SELECT 1 FROM events WHERE tx_id >= pg_snapshot_xmin(pg_current_snapshot()))
FROM (VALUES (1)) AS one (x) LEFT JOIN (
	SELECT tx_id, tx_id::text::numeric::int8 AS tx, global_position, stream_id, version, event_id, type, data, metadata, recorded_at
	FROM events
	WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot()) AND (tx_id, global_position) > ($1::text::xid8, $2::bigint)
	ORDER BY tx_id, global_position LIMIT $3
) AS p ON true
ORDER BY p.tx_id, p.global_position`

// ReadFeed implements eventstore.Store with the xid8 feed (see feedSQL).
func (s *Store) ReadFeed(ctx context.Context, after eventstore.Cursor, limit int) ([]eventstore.RecordedEvent, eventstore.Cursor, error) {
	p, err := s.ReadFeedPage(ctx, after, limit)
	return p.Events, p.Next, err
}

// ReadFeedPage implements eventstore.FeedPager: ReadFeed, and whether
// committed events are held back behind a transaction still running.
func (s *Store) ReadFeedPage(ctx context.Context, after eventstore.Cursor, limit int) (eventstore.FeedPage, error) {
	page := eventstore.FeedPage{Next: after}
	if limit <= 0 || limit > MaxFeedLimit {
		return page, &eventstore.InvalidError{Field: "limit", Reason: fmt.Sprintf("%d, want 1..%d", limit, MaxFeedLimit)}
	}
	rows, err := s.pool.Query(ctx, feedSQL, strconv.FormatUint(after.TxID, 10), after.Position, limit)
	if err != nil {
		return page, translate("read feed", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			tx, pos, version *int64
			stream, typ      *string
			id               *[16]byte
			data, meta       []byte
			recorded         *time.Time
			e                eventstore.RecordedEvent
		)
		if err := rows.Scan(&tx, &pos, &stream, &version, &id, &typ, &data, &meta, &recorded, &page.HeldBack); err != nil {
			return page, translate("read feed", err)
		}
		if tx == nil {
			continue // the empty page's row
		}
		e.GlobalPosition, e.StreamID, e.Version, e.ID, e.Type, e.RecordedAt = *pos, eventstore.StreamID(*stream), *version, uuid.UUID(*id), *typ, *recorded
		if e.Payload, err = eventstore.DecodePayload(e.Type, data); err != nil {
			return page, fmt.Errorf("stream %q version %d: %w", e.StreamID, e.Version, err)
		}
		if e.Metadata, err = eventstore.DecodeMetadata(meta); err != nil {
			return page, fmt.Errorf("stream %q version %d: %w", e.StreamID, e.Version, err)
		}
		page.Events = append(page.Events, e)
		page.Next = eventstore.Cursor{TxID: uint64(*tx), Position: e.GlobalPosition}
	}
	if err := rows.Err(); err != nil {
		return eventstore.FeedPage{Next: after}, translate("read feed", err)
	}
	return page, nil
}
