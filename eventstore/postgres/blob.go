package postgres

import (
	"context"
	"fmt"

	"github.com/roadbook/roadbook/eventstore"
)

// MaxBlobBytes bounds one blob (a long route's points fit many times over).
const MaxBlobBytes = 64 << 20

// PutBlob implements eventstore.Store; storing a hash again is a no-op.
func (s *Store) PutBlob(ctx context.Context, hash []byte, data []byte) error {
	if err := eventstore.ValidateBlobHash(hash); err != nil {
		return err
	}
	if len(data) > MaxBlobBytes {
		return &eventstore.InvalidError{Field: "blob data", Reason: fmt.Sprintf("%d bytes, more than %d", len(data), MaxBlobBytes)}
	}
	if data == nil {
		data = []byte{}
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO blobs (hash, data) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING`, hash, data)
	return translate("put blob", err)
}

// Blob implements eventstore.Store.
func (s *Store) Blob(ctx context.Context, hash []byte) ([]byte, error) {
	if err := eventstore.ValidateBlobHash(hash); err != nil {
		return nil, err
	}
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT data FROM blobs WHERE hash = $1`, hash).Scan(&data)
	return data, translate(fmt.Sprintf("blob %x", hash), err)
}
