package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/roadbook/roadbook/eventstore"
)

// translate is the one place where driver errors become eventstore errors.
// Every exported method passes its error through it; errors that are already
// the store's own (typed refusals, context errors) pass unchanged. ctx is the
// call's context: when it has ended, the driver's report of the interrupted
// statement becomes ctx's error, so callers can match context.Canceled.
func translate(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return eventstore.ErrNotFound
	}
	var se *sqlite.Error
	driver := errors.As(err, &se)
	if cerr := ctx.Err(); cerr != nil && (driver || errors.Is(err, sql.ErrTxDone)) {
		// The statement was interrupted, or database/sql rolled the
		// transaction back, because ctx ended.
		return fmt.Errorf("eventstore/sqlite: %w (%v)", cerr, err)
	}
	if !driver {
		return err
	}
	// Primary codes: the driver may or may not report extended ones.
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CONSTRAINT:
		if strings.Contains(se.Error(), "events.event_id") {
			return fmt.Errorf("%w: %s", eventstore.ErrDuplicateEvent, se.Error())
		}
	case sqlite3.SQLITE_BUSY:
		// Writes are serialised in-process, so this means another process
		// holds the file: say so rather than leak a bare code.
		return fmt.Errorf("eventstore/sqlite: database file is locked by another process: %w", err)
	}
	return fmt.Errorf("eventstore/sqlite: %w", err)
}
