package eventstore

import (
	"errors"
	"fmt"
)

// Sentinel errors, matched with errors.Is. Backends translate driver errors
// into these in exactly one function each.
var (
	// ErrNotFound: the stream, snapshot or blob does not exist.
	ErrNotFound = errors.New("eventstore: not found")
	// ErrStreamDeleted: the stream was deleted; its id is never reused.
	ErrStreamDeleted = errors.New("eventstore: stream deleted")
	// ErrDuplicateEvent: an event id was already recorded (a derived id
	// replayed); nothing was written.
	ErrDuplicateEvent = errors.New("eventstore: duplicate event id")
	// ErrIdempotencyMismatch: the idempotency key was used for a different
	// request within its window.
	ErrIdempotencyMismatch = errors.New("eventstore: idempotency key reused with a different request")
	// ErrOwnerMismatch: an append named an owner other than the stream's.
	ErrOwnerMismatch = errors.New("eventstore: stream belongs to another owner")
	// ErrInvalid: the request itself is malformed; see the InvalidError.
	ErrInvalid = errors.New("eventstore: invalid request")
)

// VersionConflictError is returned when the stream was not at the expected
// version. Current is the stream's actual version (0: it does not exist).
type VersionConflictError struct {
	Stream   StreamID
	Expected ExpectedVersion
	Current  int64
}

// ErrVersionConflict matches any *VersionConflictError with errors.Is.
var ErrVersionConflict = errors.New("eventstore: version conflict")

func (e *VersionConflictError) Error() string {
	return fmt.Sprintf("eventstore: stream %q expected %s, is at version %d", e.Stream, e.Expected, e.Current)
}

// Is makes errors.Is(err, ErrVersionConflict) true.
func (e *VersionConflictError) Is(target error) bool { return target == ErrVersionConflict }

// InvalidError names the field of a request that is wrong and why; it
// matches ErrInvalid.
type InvalidError struct {
	Field  string
	Reason string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("eventstore: invalid %s: %s", e.Field, e.Reason)
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }
