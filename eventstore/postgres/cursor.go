package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/eventstore"
)

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

// asyncCommitSQL makes the transaction it runs in commit asynchronously
// (is_local: the setting ends with the transaction).
const asyncCommitSQL = `SELECT set_config('synchronous_commit', 'off', true)`

// SaveCursor implements eventstore.Store. The save commits asynchronously
// (synchronous_commit off for its transaction only): it does not wait for
// the WAL flush, so a relay batch costs no second fsync after the appends
// it hands on. A server crash can lose the last saves (at most about three
// times wal_writer_delay, 600 ms by default); the reader then resumes from
// the save before and hands those events on again, exactly as after its own
// crash between hand-off and save, which every reader must survive anyway
// (the relay's JetStream dedup window drops the copies). Both statements
// are sent as one batch: one round trip, one implicit transaction.
func (s *Store) SaveCursor(ctx context.Context, reader string, c eventstore.Cursor) error {
	if err := validateReader(reader); err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(asyncCommitSQL)
	b.Queue(`INSERT INTO reader_cursors (reader, tx_id, position) VALUES ($1, $2::text::xid8, $3)
		ON CONFLICT (reader) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position, updated_at = now()`,
		reader, strconv.FormatUint(c.TxID, 10), c.Position)
	return translate("save cursor", s.pool.SendBatch(ctx, b).Close())
}

func validateReader(reader string) error {
	if reader == "" || len(reader) > 128 {
		return &eventstore.InvalidError{Field: "reader", Reason: fmt.Sprintf("name is %d bytes, want 1..128", len(reader))}
	}
	return nil
}
