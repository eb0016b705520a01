package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/eventstore"
)

// MaxFeedLimit bounds one ReadFeed call (the PostgreSQL backend's bound).
const MaxFeedLimit = 10000

const eventColumns = `global_position, stream_id, version, event_id, type, data, metadata, recorded_at`

// ReadStream implements eventstore.Store. An unknown stream is ErrNotFound
// and a deleted one ErrStreamDeleted, so an empty result always means "no
// events after that version".
func (s *Store) ReadStream(ctx context.Context, stream eventstore.StreamID, after int64, limit int) ([]eventstore.RecordedEvent, error) {
	if err := stream.Validate(); err != nil {
		return nil, err
	}
	if after < 0 {
		return nil, invalid("after", "negative version %d", after)
	}
	if limit < 0 {
		return nil, invalid("limit", "negative (%d); 0 means all", limit)
	}
	q := `SELECT ` + eventColumns + ` FROM events WHERE stream_id = ? AND version > ? ORDER BY version`
	args := []any{string(stream), after}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	evs, err := s.queryEvents(ctx, q, args...)
	if err != nil {
		return nil, translate(ctx, err)
	}
	if len(evs) == 0 {
		// Tell "no events past after" from "no such stream".
		if _, err := s.Stream(ctx, stream); err != nil {
			return nil, err
		}
	}
	return evs, nil
}

// Stream implements eventstore.Store.
func (s *Store) Stream(ctx context.Context, stream eventstore.StreamID) (eventstore.StreamInfo, error) {
	if err := stream.Validate(); err != nil {
		return eventstore.StreamInfo{}, err
	}
	row := s.r.QueryRowContext(ctx, `SELECT `+streamColumns+` FROM streams WHERE stream_id = ?`, string(stream))
	info, err := scanStream(row)
	if errors.Is(err, sql.ErrNoRows) {
		return info, translate(ctx, s.missing(ctx, stream))
	}
	return info, translate(ctx, err)
}

// missing says why a stream has no row: deleted (tombstone) or never created.
func (s *Store) missing(ctx context.Context, stream eventstore.StreamID) error {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM tombstones WHERE stream_id = ?`, string(stream)).Scan(&one)
	switch {
	case err == nil:
		return fmt.Errorf("%w: %q", eventstore.ErrStreamDeleted, stream)
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: stream %q", eventstore.ErrNotFound, stream)
	}
	return err
}

// ReadFeed implements eventstore.Store. Writes are serialised, so a
// transaction that commits later always holds higher positions than every
// event already visible: reading "position > cursor" in position order can
// never skip an event that commits late. The returned cursor's TxID is 0.
// limit must be 1..MaxFeedLimit.
func (s *Store) ReadFeed(ctx context.Context, after eventstore.Cursor, limit int) ([]eventstore.RecordedEvent, eventstore.Cursor, error) {
	if err := validateCursor(after); err != nil {
		return nil, after, err
	}
	if limit <= 0 || limit > MaxFeedLimit {
		return nil, after, invalid("limit", "%d, want 1..%d", limit, MaxFeedLimit)
	}
	evs, err := s.queryEvents(ctx, `SELECT `+eventColumns+` FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?`, after.Position, limit)
	if err != nil {
		return nil, after, translate(ctx, err)
	}
	next := after
	if len(evs) > 0 {
		next = eventstore.Cursor{Position: evs[len(evs)-1].GlobalPosition}
	}
	return evs, next, nil
}

func (s *Store) queryEvents(ctx context.Context, q string, args ...any) ([]eventstore.RecordedEvent, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []eventstore.RecordedEvent
	for rows.Next() {
		var (
			ev         eventstore.RecordedEvent
			stream, id string
			data, md   []byte
			recorded   int64
		)
		if err := rows.Scan(&ev.GlobalPosition, &stream, &ev.Version, &id, &ev.Type, &data, &md, &recorded); err != nil {
			return nil, err
		}
		ev.StreamID = eventstore.StreamID(stream)
		ev.RecordedAt = fromMicros(recorded)
		if ev.ID, err = uuid.Parse(id); err != nil {
			return nil, fmt.Errorf("eventstore/sqlite: event at position %d has a malformed id: %w", ev.GlobalPosition, err)
		}
		if ev.Payload, err = eventstore.DecodePayload(ev.Type, data); err != nil {
			return nil, err
		}
		if ev.Metadata, err = eventstore.DecodeMetadata(md); err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}
