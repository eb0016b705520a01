package planner

import "context"

// Limit names a per-caller rate limit of DOMAIN §9.
type Limit string

// The limits the use cases apply.
const (
	// LimitCreate: trips created from a link, per user.
	LimitCreate Limit = "create"
	// LimitUpload: trips created from an upload, per user.
	LimitUpload Limit = "upload"
	// LimitDuplicate: copies, per user.
	LimitDuplicate Limit = "duplicate"
	// LimitRecompute: analyses and accommodation searches, per user and trip.
	LimitRecompute Limit = "recompute"
	// LimitPublic: share-link reads, per client address.
	LimitPublic Limit = "public"
)

// Limits counts one call of subject against a limit, refusing it with a
// *RateLimitedError when the window is full. The API counts in a store every
// replica shares (NATS KV); a limiter that cannot count lets the call
// through, since a limit must not take the service down.
type Limits interface {
	Allow(ctx context.Context, limit Limit, subject string) error
}

// unlimited is the Limits of a planner configured with none.
type unlimited struct{}

func (unlimited) Allow(context.Context, Limit, string) error { return nil }
