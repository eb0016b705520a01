package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/roadbook/roadbook/eventstore"
)

// PutBlob implements eventstore.Store. The hash is the caller's content
// address; storing it again is a no-op (the first bytes stay).
func (s *Store) PutBlob(ctx context.Context, hash []byte, data []byte) error {
	if err := eventstore.ValidateBlobHash(hash); err != nil {
		return err
	}
	if data == nil {
		return invalid("blob data", "nil")
	}
	now := micros(s.cfg.now())
	return translate(ctx, s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO blobs (hash, data, created_at) VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING`, hash, data, now)
		return err
	}))
}

// Blob implements eventstore.Store.
func (s *Store) Blob(ctx context.Context, hash []byte) ([]byte, error) {
	if err := eventstore.ValidateBlobHash(hash); err != nil {
		return nil, err
	}
	var data []byte
	err := s.r.QueryRowContext(ctx, `SELECT data FROM blobs WHERE hash = ?`, hash).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: blob %x", eventstore.ErrNotFound, hash)
	}
	if err != nil {
		return nil, translate(ctx, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}
