package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/eventstore"
)

// MaxFeedLimit bounds one ReadFeed call.
const MaxFeedLimit = 10000

// ReadFeed implements eventstore.Store with the xid8 feed: only events of
// transactions older than every transaction still running are returned
// (tx_id < pg_snapshot_xmin), so none can commit later below the cursor; the
// order is (tx_id, global_position), which keeps each stream's order because
// an append's transaction id is assigned while it holds the stream.
func (s *Store) ReadFeed(ctx context.Context, after eventstore.Cursor, limit int) ([]eventstore.RecordedEvent, eventstore.Cursor, error) {
	if limit <= 0 || limit > MaxFeedLimit {
		return nil, after, &eventstore.InvalidError{Field: "limit", Reason: fmt.Sprintf("%d, want 1..%d", limit, MaxFeedLimit)}
	}
	rows, err := s.pool.Query(ctx, `SELECT tx_id::text::numeric::int8, global_position, stream_id, version, event_id, type, data, metadata, recorded_at
		FROM events
		WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
			AND (tx_id, global_position) > ($1::text::xid8, $2::bigint)
		ORDER BY tx_id, global_position LIMIT $3`,
		strconv.FormatUint(after.TxID, 10), after.Position, limit)
	if err != nil {
		return nil, after, translate("read feed", err)
	}
	var txs []uint64
	events, err := scanEvents(rows, &txs)
	if err != nil {
		return nil, after, err
	}
	next := after
	if n := len(events); n > 0 {
		next = eventstore.Cursor{TxID: txs[n-1], Position: events[n-1].GlobalPosition}
	}
	return events, next, nil
}

// LoadCursor implements eventstore.Store.
func (s *Store) LoadCursor(ctx context.Context, reader string) (eventstore.Cursor, error) {
	if err := validateReader(reader); err != nil {
		return eventstore.Cursor{}, err
	}
	var c eventstore.Cursor
	var tx int64
	err := s.pool.QueryRow(ctx, `SELECT tx_id::text::numeric::int8, position FROM reader_cursors WHERE reader = $1`, reader).Scan(&tx, &c.Position)
	if errors.Is(err, pgx.ErrNoRows) {
		return eventstore.Cursor{}, nil
	}
	if err != nil {
		return eventstore.Cursor{}, translate("load cursor", err)
	}
	c.TxID = uint64(tx)
	return c, nil
}

// SaveCursor implements eventstore.Store.
func (s *Store) SaveCursor(ctx context.Context, reader string, c eventstore.Cursor) error {
	if err := validateReader(reader); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO reader_cursors (reader, tx_id, position) VALUES ($1, $2::text::xid8, $3)
		ON CONFLICT (reader) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position, updated_at = now()`,
		reader, strconv.FormatUint(c.TxID, 10), c.Position)
	return translate("save cursor", err)
}

func validateReader(reader string) error {
	if reader == "" || len(reader) > 128 {
		return &eventstore.InvalidError{Field: "reader", Reason: fmt.Sprintf("name is %d bytes, want 1..128", len(reader))}
	}
	return nil
}
