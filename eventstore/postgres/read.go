package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/eventstore"
)

// ReadStream implements eventstore.Store. A stream with no events after
// `after` answers an empty slice; one that never existed ErrNotFound, a
// deleted one ErrStreamDeleted.
func (s *Store) ReadStream(ctx context.Context, stream eventstore.StreamID, after int64, limit int) ([]eventstore.RecordedEvent, error) {
	if err := stream.Validate(); err != nil {
		return nil, err
	}
	if after < 0 {
		return nil, &eventstore.InvalidError{Field: "after", Reason: fmt.Sprintf("%d is negative", after)}
	}
	if limit < 0 {
		return nil, &eventstore.InvalidError{Field: "limit", Reason: fmt.Sprintf("%d is negative (0 reads all)", limit)}
	}
	var lim *int64
	if limit > 0 {
		l := int64(limit)
		lim = &l
	}
	rows, err := s.pool.Query(ctx, `SELECT global_position, stream_id, version, event_id, type, data, metadata, recorded_at
		FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version LIMIT $3`, string(stream), after, lim)
	if err != nil {
		return nil, translate("read stream", err)
	}
	events, err := scanEvents(rows, nil)
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		if _, err := s.head(ctx, stream); err != nil {
			return nil, err
		}
	}
	return events, nil
}

// scanEvents reads event rows; with txs non-nil, the first column is the
// transaction id (as text) and is collected there.
func scanEvents(rows pgx.Rows, txs *[]uint64) ([]eventstore.RecordedEvent, error) {
	defer rows.Close()
	var out []eventstore.RecordedEvent
	for rows.Next() {
		var (
			e          eventstore.RecordedEvent
			stream     string
			id         [16]byte
			data, meta []byte
			tx         uint64
		)
		dest := []any{&e.GlobalPosition, &stream, &e.Version, &id, &e.Type, &data, &meta, &e.RecordedAt}
		if txs != nil {
			dest = append([]any{&tx}, dest...)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, translate("scan events", err)
		}
		e.StreamID, e.ID = eventstore.StreamID(stream), uuid.UUID(id)
		var err error
		if e.Payload, err = eventstore.DecodePayload(e.Type, data); err != nil {
			return nil, fmt.Errorf("stream %q version %d: %w", stream, e.Version, err)
		}
		if e.Metadata, err = eventstore.DecodeMetadata(meta); err != nil {
			return nil, fmt.Errorf("stream %q version %d: %w", stream, e.Version, err)
		}
		if txs != nil {
			*txs = append(*txs, tx)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, translate("read events", err)
	}
	return out, nil
}

const streamColumns = `stream_id, version, owner, title, status, summary, created_at, updated_at`

func scanStream(row pgx.Row) (eventstore.StreamInfo, error) {
	var (
		info    eventstore.StreamInfo
		id      string
		summary []byte
	)
	err := row.Scan(&id, &info.Version, &info.Owner, &info.Summary.Title, &info.Summary.Status, &summary, &info.CreatedAt, &info.UpdatedAt)
	info.ID, info.Summary.Data = eventstore.StreamID(id), summary
	return info, err
}

// head loads a stream row, telling a deleted stream from one that never was.
func (s *Store) head(ctx context.Context, stream eventstore.StreamID) (eventstore.StreamInfo, error) {
	info, err := scanStream(s.pool.QueryRow(ctx, `SELECT `+streamColumns+` FROM streams WHERE stream_id = $1`, string(stream)))
	if errors.Is(err, pgx.ErrNoRows) {
		var deleted bool
		if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM tombstones WHERE stream_id = $1)`, string(stream)).Scan(&deleted); err != nil {
			return info, translate("stream", err)
		}
		if deleted {
			return info, fmt.Errorf("stream %q: %w", stream, eventstore.ErrStreamDeleted)
		}
		return info, fmt.Errorf("stream %q: %w", stream, eventstore.ErrNotFound)
	}
	return info, translate("stream", err)
}

// Stream implements eventstore.Store.
func (s *Store) Stream(ctx context.Context, stream eventstore.StreamID) (eventstore.StreamInfo, error) {
	if err := stream.Validate(); err != nil {
		return eventstore.StreamInfo{}, err
	}
	return s.head(ctx, stream)
}

// ListStreams implements eventstore.Store.
func (s *Store) ListStreams(ctx context.Context, q eventstore.ListQuery) (eventstore.ListPage, error) {
	if err := q.Validate(); err != nil {
		return eventstore.ListPage{}, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = eventstore.DefaultListLimit
	}
	var (
		match    *string
		afterAt  *time.Time
		afterID  string
		statusEq = q.Status
	)
	if len(q.Match) > 0 {
		m := string(q.Match)
		match = &m
	}
	if q.After != nil {
		at := q.After.CreatedAt
		afterAt, afterID = &at, string(q.After.ID)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+streamColumns+` FROM streams
		WHERE owner = $1 AND ($2 = '' OR status = $2) AND ($3::jsonb IS NULL OR summary @> $3::jsonb)
			AND ($4::timestamptz IS NULL OR (created_at, stream_id) < ($4::timestamptz, $5::text))
		ORDER BY created_at DESC, stream_id DESC LIMIT $6`,
		q.Owner, statusEq, match, afterAt, afterID, limit+1)
	if err != nil {
		return eventstore.ListPage{}, translate("list streams", err)
	}
	defer rows.Close()
	var page eventstore.ListPage
	for rows.Next() {
		info, err := scanStream(rows)
		if err != nil {
			return eventstore.ListPage{}, translate("list streams", err)
		}
		page.Streams = append(page.Streams, info)
	}
	if err := rows.Err(); err != nil {
		return eventstore.ListPage{}, translate("list streams", err)
	}
	if len(page.Streams) > limit {
		page.Streams = page.Streams[:limit]
		last := page.Streams[limit-1]
		page.Next = &eventstore.ListPosition{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}
