package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/roadbook/roadbook/eventstore"
)

// LoadCursor implements eventstore.Store.
func (s *Store) LoadCursor(ctx context.Context, reader string) (eventstore.Cursor, error) {
	if err := validateReader(reader); err != nil {
		return eventstore.Cursor{}, err
	}
	var c eventstore.Cursor
	err := s.r.QueryRowContext(ctx, `SELECT tx_id, position FROM reader_cursors WHERE reader = ?`, reader).Scan(&c.TxID, &c.Position)
	if errors.Is(err, sql.ErrNoRows) {
		return eventstore.Cursor{}, nil
	}
	return c, translate(ctx, err)
}

// SaveCursor implements eventstore.Store.
func (s *Store) SaveCursor(ctx context.Context, reader string, c eventstore.Cursor) error {
	if err := validateReader(reader); err != nil {
		return err
	}
	if err := validateCursor(c); err != nil {
		return err
	}
	now := micros(s.cfg.now())
	return translate(ctx, s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO reader_cursors (reader, tx_id, position, updated_at) VALUES (?, 0, ?, ?)
			ON CONFLICT (reader) DO UPDATE SET tx_id = 0, position = excluded.position, updated_at = excluded.updated_at`,
			reader, c.Position, now)
		return err
	}))
}
