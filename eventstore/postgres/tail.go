package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/eventstore"
)

var _ eventstore.TailReader = (*Store)(nil)

// ReadStreamTail implements eventstore.TailReader: headSQL and
// readStreamSQL pipelined in one batch, one round trip where Stream then
// ReadStream take two. Each statement reads with its own snapshot (READ
// COMMITTED), so the events may run past the head's version by what
// committed in between, as the interface allows.
func (s *Store) ReadStreamTail(ctx context.Context, stream eventstore.StreamID, after int64, limit int) (eventstore.StreamInfo, []eventstore.RecordedEvent, error) {
	if err := stream.Validate(); err != nil {
		return eventstore.StreamInfo{}, nil, err
	}
	lim, err := readBounds(after, limit)
	if err != nil {
		return eventstore.StreamInfo{}, nil, err
	}
	b := &pgx.Batch{}
	b.Queue(headSQL, string(stream))
	b.Queue(readStreamSQL, string(stream), after, lim)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	info, err := scanHead(br.QueryRow(), stream)
	if err != nil {
		return eventstore.StreamInfo{}, nil, err
	}
	rows, err := br.Query()
	if err != nil {
		return eventstore.StreamInfo{}, nil, translate("read stream", err)
	}
	events, err := scanEvents(rows, nil, false)
	if err != nil {
		return eventstore.StreamInfo{}, nil, err
	}
	if err := br.Close(); err != nil {
		return eventstore.StreamInfo{}, nil, translate("read stream", err)
	}
	return info, events, nil
}
