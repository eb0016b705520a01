package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/roadbook/roadbook/eventstore"
)

// translate is the one place where pgx and PostgreSQL errors become
// eventstore errors, so callers match errors.Is/As against the eventstore
// sentinels and never against driver types. op names the operation.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("eventstore/postgres: %s: %w", op, err)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("eventstore/postgres: %s: %w", op, eventstore.ErrNotFound)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "23505" && pgErr.ConstraintName == "events_event_id_key":
			return fmt.Errorf("%w (%s): %s", eventstore.ErrDuplicateEvent, op, pgErr.Detail)
		case pgErr.Code == "57014": // query_canceled: statement timeout or cancel request
			return fmt.Errorf("eventstore/postgres: %s: cancelled by the server: %w", op, err)
		}
		return fmt.Errorf("eventstore/postgres: %s: %s (SQLSTATE %s): %w", op, pgErr.Message, pgErr.Code, err)
	}
	return fmt.Errorf("eventstore/postgres: %s: %w", op, err)
}
