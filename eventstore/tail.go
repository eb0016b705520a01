package eventstore

import "context"

// TailReader is implemented by backends that read a stream's head row and
// the events after a version in one round trip (PostgreSQL: one statement
// joining the head row with the events). A load is otherwise two: the head row (version,
// owner, deletion), then the events its cached state lacks. It is what
// package aggregate's Load uses when the store has it; a backend without it
// (the embedded store, which has no round trips) answers Stream and
// ReadStream.
type TailReader interface {
	// ReadStreamTail answers what Stream answers (ErrNotFound for a stream
	// that never existed, ErrStreamDeleted for a deleted one) and, for a
	// stream that exists, what ReadStream(stream, after, limit) answers. The
	// events may run past the head row's version when an append commits
	// between the two reads; a caller that needs them consistent stops at
	// the head's version.
	ReadStreamTail(ctx context.Context, stream StreamID, after int64, limit int) (StreamInfo, []RecordedEvent, error)
}
