package sqlite

import (
	"context"
	"strings"

	"github.com/roadbook/roadbook/eventstore"
)

const streamColumns = `stream_id, version, owner, title, status, summary, created_at, updated_at`

type rowScanner interface{ Scan(dest ...any) error }

func scanStream(row rowScanner) (eventstore.StreamInfo, error) {
	var (
		info             eventstore.StreamInfo
		id, summary      string
		created, updated int64
	)
	if err := row.Scan(&id, &info.Version, &info.Owner, &info.Summary.Title, &info.Summary.Status, &summary, &created, &updated); err != nil {
		return eventstore.StreamInfo{}, err
	}
	info.ID = eventstore.StreamID(id)
	info.Summary.Data = []byte(summary)
	info.CreatedAt = fromMicros(created)
	info.UpdatedAt = fromMicros(updated)
	return info, nil
}

// matchClause implements ListQuery.Match as containment of top-level keys:
// for every key of the match object, the summary must hold the same key with
// an equal value. json_each walks the match object (one bound parameter,
// keys quoted by SQLite in fullkey, no SQL built from user input) and
// json_extract reads the same path from the summary. Values compare by JSON
// type and value, numbers numerically (1 equals 1.0); nested objects and
// arrays must be equal as minified JSON text, not merely contained — the
// PostgreSQL backend's @> is recursive, which list filters do not need.
const matchClause = ` AND NOT EXISTS (
	SELECT 1 FROM json_each(json(?)) AS m
	WHERE coalesce(
		(json_type(s.summary, m.fullkey) IS m.type
			OR (json_type(s.summary, m.fullkey) IN ('integer', 'real') AND m.type IN ('integer', 'real')))
		AND json_extract(s.summary, m.fullkey) IS m.value,
	0) = 0 -- a missing key makes the comparison NULL: no match
)`

// ListStreams implements eventstore.Store: newest first, keyset pagination
// on (created_at DESC, stream_id DESC) through the streams_owner_created
// index.
func (s *Store) ListStreams(ctx context.Context, q eventstore.ListQuery) (eventstore.ListPage, error) {
	if err := q.Validate(); err != nil {
		return eventstore.ListPage{}, err
	}
	if q.Limit == 0 {
		q.Limit = eventstore.DefaultListLimit
	}
	var sb strings.Builder
	sb.WriteString(`SELECT ` + prefixed("s.", streamColumns) + ` FROM streams AS s WHERE s.owner = ?`)
	args := []any{q.Owner}
	if q.Status != "" {
		sb.WriteString(` AND s.status = ?`)
		args = append(args, q.Status)
	}
	if len(q.Match) > 0 {
		sb.WriteString(matchClause)
		args = append(args, string(q.Match))
	}
	if a := q.After; a != nil {
		sb.WriteString(` AND (s.created_at < ? OR (s.created_at = ? AND s.stream_id < ?))`)
		us := micros(a.CreatedAt)
		args = append(args, us, us, string(a.ID))
	}
	sb.WriteString(` ORDER BY s.created_at DESC, s.stream_id DESC LIMIT ?`)
	args = append(args, q.Limit+1) // one more tells whether a next page exists

	rows, err := s.r.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return eventstore.ListPage{}, translate(ctx, err)
	}
	defer rows.Close()
	var page eventstore.ListPage
	for rows.Next() {
		info, err := scanStream(rows)
		if err != nil {
			return eventstore.ListPage{}, translate(ctx, err)
		}
		page.Streams = append(page.Streams, info)
	}
	if err := rows.Err(); err != nil {
		return eventstore.ListPage{}, translate(ctx, err)
	}
	if len(page.Streams) > q.Limit {
		page.Streams = page.Streams[:q.Limit]
		last := page.Streams[q.Limit-1]
		page.Next = &eventstore.ListPosition{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}

func prefixed(prefix, columns string) string {
	parts := strings.Split(columns, ", ")
	for i, p := range parts {
		parts[i] = prefix + p
	}
	return strings.Join(parts, ", ")
}
