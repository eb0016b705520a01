package eventstore

// Limits every backend enforces before touching storage, so a refused request
// writes nothing and the same request is refused the same way everywhere.
const (
	// MaxEventsPerAppend bounds one append: a bigger batch is a bulk import,
	// which belongs in several appends (and keeps transactions short, which
	// the PostgreSQL feed depends on).
	MaxEventsPerAppend = 1000
	// MaxPayloadBytes bounds one event's encoded (protojson) payload; large
	// data such as route points goes to blobs and events refer to its hash.
	MaxPayloadBytes = 1 << 20
	// MaxOwnerLength bounds AppendRequest.Owner.
	MaxOwnerLength = 256
	// MaxIdempotencyKeyLength bounds Idempotency.Key.
	MaxIdempotencyKeyLength = 256
	// MaxBlobHashLength bounds a blob's content hash (SHA-512 fits).
	MaxBlobHashLength = 64
)
