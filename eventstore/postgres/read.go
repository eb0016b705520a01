package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/eventstore"
)

// readStreamSQL reads one stream's events after a version, at most $3 (NULL:
// all), in version order.
const readStreamSQL = `SELECT global_position, stream_id, version, event_id, type, data, metadata, recorded_at
	FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version LIMIT $3`

// ReadStream implements eventstore.Store. A stream with no events after
// `after` answers an empty slice; one that never existed ErrNotFound, a
// deleted one ErrStreamDeleted.
func (s *Store) ReadStream(ctx context.Context, stream eventstore.StreamID, after int64, limit int) ([]eventstore.RecordedEvent, error) {
	if err := stream.Validate(); err != nil {
		return nil, err
	}
	lim, err := readBounds(after, limit)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, readStreamSQL, string(stream), after, lim)
	if err != nil {
		return nil, translate("read stream", err)
	}
	events, err := scanEvents(rows, nil, false, nil)
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

// readBounds checks ReadStream's after and limit and returns the limit as
// readStreamSQL's parameter (nil: all).
func readBounds(after int64, limit int) (*int64, error) {
	if after < 0 {
		return nil, &eventstore.InvalidError{Field: "after", Reason: fmt.Sprintf("%d is negative", after)}
	}
	if limit < 0 {
		return nil, &eventstore.InvalidError{Field: "limit", Reason: fmt.Sprintf("%d is negative (0 reads all)", limit)}
	}
	if limit == 0 {
		return nil, nil
	}
	l := int64(limit)
	return &l, nil
}

// scanEvents reads event rows; with txs non-nil, the first column is the
// transaction id (as text) and is collected there. With raw, payloads are
// not decoded: each event carries its stored JSON in Data instead. With
// owners non-nil, a last column is the owner of the stream an event
// begins (NULL for any other event), collected there.
func scanEvents(rows pgx.Rows, txs *[]uint64, raw bool, owners map[eventstore.StreamID]string) ([]eventstore.RecordedEvent, error) {
	defer rows.Close()
	var out []eventstore.RecordedEvent
	for rows.Next() {
		var (
			e          eventstore.RecordedEvent
			stream     string
			id         [16]byte
			data, meta []byte
			tx         uint64
			owner      *string
		)
		dest := []any{&e.GlobalPosition, &stream, &e.Version, &id, &e.Type, &data, &meta, &e.RecordedAt}
		if txs != nil {
			dest = append([]any{&tx}, dest...)
		}
		if owners != nil {
			dest = append(dest, &owner)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, translate("scan events", err)
		}
		e.StreamID, e.ID = eventstore.StreamID(stream), uuid.UUID(id)
		if owner != nil {
			owners[e.StreamID] = *owner
		}
		var err error
		if raw {
			e.Data = data
		} else if e.Payload, err = eventstore.DecodePayload(e.Type, data); err != nil {
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

// headSQL reads a stream's head row and, only when there is none, whether
// a tombstone says it was deleted: one round trip either way (a creation's
// load asks about a stream that does not exist yet). Exactly one row.
const headSQL = `SELECT s.stream_id, s.version, s.owner, s.title, s.status, s.summary, s.created_at, s.updated_at,
	CASE WHEN s.stream_id IS NULL THEN EXISTS (SELECT 1 FROM tombstones WHERE stream_id = $1) END
	FROM (VALUES (1)) AS one (x) LEFT JOIN streams s ON s.stream_id = $1`

// head loads a stream row, telling a deleted stream from one that never was.
func (s *Store) head(ctx context.Context, stream eventstore.StreamID) (eventstore.StreamInfo, error) {
	return scanHead(s.pool.QueryRow(ctx, headSQL, string(stream)), stream)
}

// scanHead scans headSQL's row: the stream's head, or why there is none.
func scanHead(row pgx.Row, stream eventstore.StreamID) (eventstore.StreamInfo, error) {
	var (
		id, owner, title, status *string
		version                  *int64
		summary                  []byte
		created, updated         *time.Time
		deleted                  *bool
	)
	if err := row.Scan(&id, &version, &owner, &title, &status, &summary, &created, &updated, &deleted); err != nil {
		return eventstore.StreamInfo{}, translate("stream", err)
	}
	switch {
	case id != nil:
		return eventstore.StreamInfo{ID: eventstore.StreamID(*id), Version: *version, Owner: *owner,
			Summary: eventstore.Summary{Title: *title, Status: *status, Data: summary}, CreatedAt: *created, UpdatedAt: *updated}, nil
	case deleted != nil && *deleted:
		return eventstore.StreamInfo{}, fmt.Errorf("stream %q: %w", stream, eventstore.ErrStreamDeleted)
	}
	return eventstore.StreamInfo{}, fmt.Errorf("stream %q: %w", stream, eventstore.ErrNotFound)
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
