package eventstore

import (
	"context"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
)

// Store is what every backend provides. The conformance suite (package
// storetest) runs against each implementation, so callers may rely on every
// behaviour documented here regardless of the backend.
type Store interface {
	// Append writes events atomically at the end of a stream if the stream's
	// version matches req.Expected, updating the stream's summary in the same
	// transaction. With an idempotency key, a replay answers the first result
	// (Replayed set) and a different request under the same key is
	// ErrIdempotencyMismatch.
	Append(ctx context.Context, req AppendRequest) (AppendResult, error)

	// LookupIdempotency answers an idempotency key without appending, as
	// Append answers a replay: while the key is live, the first result
	// recorded under it (Replayed set, Response the stored response), or
	// ErrIdempotencyMismatch when it was recorded for another request hash;
	// ErrNotFound when it is unknown or expired, and the caller executes.
	// A caller that looks first spares the work of building an append that
	// would only be answered from the record. Two callers that both miss
	// are still resolved by their appends, which check the key again under
	// its lock: one executes, the other is answered as a replay.
	LookupIdempotency(ctx context.Context, key string, requestHash []byte) (AppendResult, error)

	// ReadStream returns the events of one stream with version > after, in
	// version order, at most limit (0 = all).
	ReadStream(ctx context.Context, stream StreamID, after int64, limit int) ([]RecordedEvent, error)

	// Stream returns the stream's head row: version, owner and summary.
	Stream(ctx context.Context, stream StreamID) (StreamInfo, error)

	// ListStreams lists one owner's streams, newest first, with keyset
	// pagination on (created_at, stream id).
	ListStreams(ctx context.Context, q ListQuery) (ListPage, error)

	// DeleteStream removes a stream whole (events, snapshots, summary, blob
	// references) and leaves a tombstone so the id is never reused.
	DeleteStream(ctx context.Context, stream StreamID) error

	// SaveSnapshot stores the folded state of a stream at a version, tagged
	// with the state schema version so a changed schema is rebuilt from events.
	SaveSnapshot(ctx context.Context, s Snapshot) error

	// LoadSnapshot returns the newest snapshot of a stream for schemaVersion,
	// or ErrNotFound when there is none (the caller folds from the start).
	LoadSnapshot(ctx context.Context, stream StreamID, schemaVersion int) (Snapshot, error)

	// PutBlob stores content-addressed bytes (route points) once; storing the
	// same hash again is a no-op.
	PutBlob(ctx context.Context, hash []byte, data []byte) error

	// Blob returns the bytes stored under hash, or ErrNotFound.
	Blob(ctx context.Context, hash []byte) ([]byte, error)

	// ReadFeed returns committed events after cursor in the order the relay
	// must publish them (per-stream order always holds), at most limit, and
	// the cursor after the last returned event. An event whose transaction
	// commits late is never skipped.
	ReadFeed(ctx context.Context, after Cursor, limit int) ([]RecordedEvent, Cursor, error)

	// LoadCursor returns a reader's saved feed position (the zero Cursor for a
	// reader that never saved one).
	LoadCursor(ctx context.Context, reader string) (Cursor, error)

	// SaveCursor records a reader's feed position; a reader saves it only
	// after what it read was safely handed on (e.g. acked by JetStream).
	// A backend may make it durable lazily (PostgreSQL commits it
	// asynchronously): a database crash can then return the reader to its
	// save before, and it hands some events on again, as after its own
	// crash between hand-off and save, which it must tolerate anyway.
	SaveCursor(ctx context.Context, reader string, c Cursor) error

	// Housekeep removes expired idempotency keys and blobs that no stream
	// references (older than a grace period), in bounded chunks.
	Housekeep(ctx context.Context, now time.Time) (HousekeepingReport, error)

	// Close releases the backend's resources.
	Close()
}

// NewEvent is an event to append. Payload is any registered protobuf message;
// its full name becomes the event type, and the bytes are stored as protojson
// so that stored events stay readable and `buf breaking` guards them.
type NewEvent struct {
	// ID is the event's identity; zero means "generate one". Callers that
	// must be idempotent (workers) derive it, so a replayed append is refused
	// as a duplicate instead of recorded twice.
	ID       uuid.UUID
	Payload  proto.Message
	Metadata Metadata
}

// Metadata is what every event carries besides its payload: why it happened
// (causation), which flow it belongs to (correlation), who acted, and — for
// computed results — what it was computed for, so stale results can be told
// from fresh ones.
type Metadata struct {
	CausationID   string            `json:"causationId,omitempty"`
	CorrelationID string            `json:"correlationId,omitempty"`
	Actor         string            `json:"actor,omitempty"`
	ComputedFor   string            `json:"computedFor,omitempty"`
	Trace         map[string]string `json:"trace,omitempty"`
}

// RecordedEvent is an event as stored.
type RecordedEvent struct {
	GlobalPosition int64
	StreamID       StreamID
	Version        int64
	ID             uuid.UUID
	Type           string
	Payload        proto.Message
	Metadata       Metadata
	RecordedAt     time.Time
	// Data is the payload as the backend stored it (protojson, as the
	// writer encoded it), set only where a reader asked for events
	// undecoded (FeedPager): Payload is nil then. A relay hands Data on as
	// is and decodes only the events it maps to work, instead of decoding
	// every event and encoding it again (protojson both ways: most of the
	// relay's CPU in a profile of the soak).
	Data []byte
}

// AppendRequest is one atomic append.
type AppendRequest struct {
	Stream   StreamID
	Expected ExpectedVersion
	Events   []NewEvent
	// Owner is recorded when the stream is created and must match afterwards
	// (a stream never changes hands).
	Owner string
	// Summary, when non-nil, replaces the stream's summary row in the same
	// transaction (what list pages show without folding events).
	Summary *Summary
	// BlobRefs are content hashes the stream now references, so housekeeping
	// keeps those blobs.
	BlobRefs [][]byte
	// Idempotency, when set, makes the append answer a replay with the first
	// result.
	Idempotency *Idempotency
}

// Idempotency binds an append to a caller-chosen key for a window.
type Idempotency struct {
	Key string
	// RequestHash fingerprints the request; the same key with another hash is
	// ErrIdempotencyMismatch.
	RequestHash []byte
	// Response is stored with the key and returned verbatim on replay, so an
	// API can answer a retried call exactly as the first time.
	Response []byte
	// ExpiresAt comes from the caller's injectable clock, not the database's.
	ExpiresAt time.Time
}

// AppendResult is the answer to an append (or to its replay).
type AppendResult struct {
	// Version is the stream version after the append.
	Version int64
	// FirstPosition and LastPosition are the global positions written.
	FirstPosition, LastPosition int64
	// Replayed is true when the answer came from an earlier append with the
	// same idempotency key.
	Replayed bool
	// Response is Idempotency.Response of the first append.
	Response []byte
}

// Summary is the stream's row in list pages: a small set of typed columns
// plus free-form JSON the owner of the stream type defines.
type Summary struct {
	Title  string
	Status string
	// Data is JSON (e.g. distance, dates) that ListQuery.Match filters on.
	Data []byte
}

// StreamInfo is a stream's head.
type StreamInfo struct {
	ID        StreamID
	Version   int64
	Owner     string
	Summary   Summary
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ListQuery selects one owner's streams.
type ListQuery struct {
	Owner  string
	Status string // optional exact filter
	// Match, when set, is a JSON object the summary data must contain.
	Match []byte
	Limit int
	// After is the keyset position from the previous page (nil: first page).
	After *ListPosition
}

// ListPosition is a keyset position: created_at then stream id, descending.
type ListPosition struct {
	CreatedAt time.Time
	ID        StreamID
}

// ListPage is one page of streams.
type ListPage struct {
	Streams []StreamInfo
	// Next is the position to continue from, nil on the last page.
	Next *ListPosition
}

// Snapshot is a stream's folded state at a version.
type Snapshot struct {
	Stream        StreamID
	Version       int64
	SchemaVersion int
	Data          []byte
}

// Cursor is a feed position. PostgreSQL orders the feed by (TxID,
// Position); a single-writer backend leaves TxID zero.
type Cursor struct {
	TxID     uint64
	Position int64
}

// HousekeepingReport says what one housekeeping pass removed.
type HousekeepingReport struct {
	IdempotencyKeys int
	Blobs           int
}
