package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/eventstore"
)

var _ eventstore.TailReader = (*Store)(nil)

// tailSQL is headSQL and readStreamSQL in one statement: the head row (or
// why there is none) joined with the events after $2 (at most $3; NULL:
// all), one row per event, or one row with NULL event columns when there is
// none. A load is the most frequent read of the soak (the stages and
// analysis jobs, every API read that misses its cache); as two pipelined
// statements it cost PostgreSQL two executions per load, the second of them
// usually finding no event at all, where one statement costs one. One
// statement also reads both with one snapshot, so the events never run
// past the head's version.
const tailSQL = `SELECT h.stream_id, h.version, h.owner, h.title, h.status, h.summary, h.created_at, h.updated_at, h.deleted,
	e.global_position, e.version, e.event_id, e.type, e.data, e.metadata, e.recorded_at
	FROM (SELECT s.stream_id, s.version, s.owner, s.title, s.status, s.summary, s.created_at, s.updated_at,
			CASE WHEN s.stream_id IS NULL THEN EXISTS (SELECT 1 FROM tombstones WHERE stream_id = $1) END AS deleted
		FROM (VALUES (1)) AS one (x) LEFT JOIN streams s ON s.stream_id = $1) AS h
	LEFT JOIN LATERAL (SELECT global_position, version, event_id, type, data, metadata, recorded_at
		FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version LIMIT $3) AS e ON h.stream_id IS NOT NULL
	ORDER BY e.version`

// ReadStreamTail implements eventstore.TailReader with tailSQL: one round
// trip and one statement, where Stream then ReadStream take two of each.
func (s *Store) ReadStreamTail(ctx context.Context, stream eventstore.StreamID, after int64, limit int) (eventstore.StreamInfo, []eventstore.RecordedEvent, error) {
	if err := stream.Validate(); err != nil {
		return eventstore.StreamInfo{}, nil, err
	}
	lim, err := readBounds(after, limit)
	if err != nil {
		return eventstore.StreamInfo{}, nil, err
	}
	rows, err := s.pool.Query(ctx, tailSQL, string(stream), after, lim)
	if err != nil {
		return eventstore.StreamInfo{}, nil, translate("read stream", err)
	}
	defer rows.Close()
	var (
		info   eventstore.StreamInfo
		events []eventstore.RecordedEvent
		first  = true
	)
	for rows.Next() {
		var (
			id, owner, title, status *string
			version                  *int64
			summary                  []byte
			created, updated         *time.Time
			deleted                  *bool
			pos, evVersion           *int64
			evID                     *[16]byte
			typ                      *string
			data, meta               []byte
			recorded                 *time.Time
		)
		if err := rows.Scan(&id, &version, &owner, &title, &status, &summary, &created, &updated, &deleted,
			&pos, &evVersion, &evID, &typ, &data, &meta, &recorded); err != nil {
			return eventstore.StreamInfo{}, nil, translate("read stream", err)
		}
		if first {
			first = false
			switch {
			case id != nil:
				info = eventstore.StreamInfo{ID: eventstore.StreamID(*id), Version: *version, Owner: *owner,
					Summary: eventstore.Summary{Title: *title, Status: *status, Data: summary}, CreatedAt: *created, UpdatedAt: *updated}
			case deleted != nil && *deleted:
				return eventstore.StreamInfo{}, nil, fmt.Errorf("stream %q: %w", stream, eventstore.ErrStreamDeleted)
			default:
				return eventstore.StreamInfo{}, nil, fmt.Errorf("stream %q: %w", stream, eventstore.ErrNotFound)
			}
		}
		if pos == nil {
			continue // the head alone: no event after the version
		}
		e := eventstore.RecordedEvent{GlobalPosition: *pos, StreamID: stream, Version: *evVersion, ID: uuid.UUID(*evID),
			Type: *typ, RecordedAt: *recorded}
		if e.Payload, err = eventstore.DecodePayload(e.Type, data); err != nil {
			return eventstore.StreamInfo{}, nil, fmt.Errorf("stream %q version %d: %w", stream, e.Version, err)
		}
		if e.Metadata, err = eventstore.DecodeMetadata(meta); err != nil {
			return eventstore.StreamInfo{}, nil, fmt.Errorf("stream %q version %d: %w", stream, e.Version, err)
		}
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return eventstore.StreamInfo{}, nil, translate("read stream", err)
	}
	if first { // no row at all: tailSQL always answers one
		return eventstore.StreamInfo{}, nil, fmt.Errorf("stream %q: %w", stream, eventstore.ErrNotFound)
	}
	return info, events, nil
}
