package sqlite

import (
	"fmt"

	"github.com/roadbook/roadbook/eventstore"
)

// MaxReaderNameLength bounds feed reader names.
const MaxReaderNameLength = 128

// Appends, list queries and blob hashes are validated by the eventstore
// package (AppendRequest.Validate, ListQuery.Validate, ValidateBlobHash), so
// both backends refuse the same requests the same way; what is checked here
// is what only this backend cares about.

func invalid(field, format string, args ...any) error {
	return &eventstore.InvalidError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

func validateReader(reader string) error {
	switch {
	case reader == "":
		return invalid("reader", "empty")
	case len(reader) > MaxReaderNameLength:
		return invalid("reader", "longer than %d bytes", MaxReaderNameLength)
	}
	return nil
}

// validateCursor refuses cursors this backend never hands out: a TxID only
// comes from the PostgreSQL feed.
func validateCursor(c eventstore.Cursor) error {
	switch {
	case c.TxID != 0:
		return invalid("cursor", "TxID %d: this single-writer backend orders by position alone (TxID 0); the cursor is from another backend", c.TxID)
	case c.Position < 0:
		return invalid("cursor", "negative position %d", c.Position)
	}
	return nil
}
