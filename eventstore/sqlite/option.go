package sqlite

import "time"

// Option tunes Open. The defaults suit one-process mode on a laptop; options
// exist so tests can inject a clock and hosts can size the read pool.
type Option func(*config)

type config struct {
	now       func() time.Time
	readConns int
	blobGrace time.Duration
}

func defaultConfig() config {
	return config{now: time.Now, readConns: 4, blobGrace: DefaultBlobGrace}
}

// DefaultBlobGrace is how long an unreferenced blob is kept before
// housekeeping removes it: a blob is stored (PutBlob) before the append that
// references it commits, so a younger blob may simply be about to be used.
const DefaultBlobGrace = time.Hour

// WithClock sets the clock that stamps recorded_at, created_at and
// updated_at and decides whether an idempotency key has expired, so tests
// control time instead of sleeping.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithReadConns sets the size of the read-connection pool (default 4).
// Reads never wait for the writer in WAL mode, so this bounds read
// parallelism only.
func WithReadConns(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.readConns = n
		}
	}
}

// WithBlobGrace sets how old an unreferenced blob must be before Housekeep
// removes it (default DefaultBlobGrace).
func WithBlobGrace(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.blobGrace = d
		}
	}
}
