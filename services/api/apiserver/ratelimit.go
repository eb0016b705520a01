package apiserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/planner"
)

// limiter counts calls per key in fixed windows in a NATS JetStream
// key-value bucket, so every API replica shares one count (in-memory limits
// would multiply by the replica count). NATS KV rather than a PostgreSQL
// table because it is there in both modes (one-process mode runs the
// embedded store and embedded NATS), counters expire by the bucket's TTL
// with no housekeeping, and rate-limit traffic never competes with event
// appends for database connections. Increments are compare-and-swap on the
// key's revision, so concurrent replicas never lose a count.
type limiter struct {
	kv    jetstream.KeyValue
	now   func() time.Time
	log   *slog.Logger
	ready bool
}

// rateBucket is the KV bucket of the counters.
const rateBucket = "roadbook_ratelimits"

func newLimiter(ctx context.Context, js jetstream.JetStream, rates RateLimits, now func() time.Time, log *slog.Logger) (*limiter, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: rateBucket, TTL: rates.keepFor(), History: 1,
		Description: "Roadbook API rate-limit counters (fixed windows)",
	})
	if err != nil {
		return nil, fmt.Errorf("apiserver: rate-limit bucket: %w", err)
	}
	return &limiter{kv: kv, now: now, log: log, ready: true}, nil
}

// keepFor is how long the bucket keeps a counter: twice the longest window
// configured (at least a minute), so a counter outlives its window — one
// dropped early would let its user past the limit — and little more. Each
// (kind, user, window) is a key of its own, and the NATS server keeps an
// index entry per key while it is stored: kept ten minutes, as before,
// the counters of a 10-minute soak's 200 agents only piled up.
func (r RateLimits) keepFor() time.Duration {
	longest := time.Duration(0)
	for _, l := range []RateLimit{r.Create, r.Upload, r.Duplicate, r.Recompute, r.Geocode, r.Public} {
		longest = max(longest, l.Window)
	}
	return max(2*longest, time.Minute)
}

// window is the key and the end of the current window of (kind, subject).
func (l *limiter) window(kind, subject string, lim RateLimit) (string, time.Time) {
	now := l.now()
	start := now.Truncate(lim.Window)
	h := sha256.Sum256([]byte(subject))
	return kind + "." + hex.EncodeToString(h[:12]) + "." + strconv.FormatInt(start.Unix(), 10), start.Add(lim.Window)
}

// allow counts one call of subject for kind, refusing it with a
// *planner.RateLimitedError when the window is full. A failure of NATS itself lets
// the call through (logged): a limit must not take the API down.
func (l *limiter) allow(ctx context.Context, kind, subject string, lim RateLimit) error {
	return l.add(ctx, kind, subject, lim, true)
}

// peek refuses when the window is already full, without counting (for
// limits counted only afterwards, like geocoding cache misses).
func (l *limiter) peek(ctx context.Context, kind, subject string, lim RateLimit) error {
	return l.add(ctx, kind, subject, lim, false)
}

func (l *limiter) add(ctx context.Context, kind, subject string, lim RateLimit, count bool) error {
	if lim.N <= 0 {
		return nil
	}
	key, end := l.window(kind, subject, lim)
	for range 20 {
		entry, err := l.kv.Get(ctx, key)
		var n int
		var rev uint64
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			l.log.WarnContext(ctx, "rate limiter unavailable; allowing", "error", err)
			return nil
		default:
			n, _ = strconv.Atoi(string(entry.Value()))
			rev = entry.Revision()
		}
		if n >= lim.N {
			return &planner.RateLimitedError{RetryAfter: max(time.Second, end.Sub(l.now()).Round(time.Second))}
		}
		if !count {
			return nil
		}
		val := []byte(strconv.Itoa(n + 1))
		if rev == 0 {
			_, err = l.kv.Create(ctx, key, val)
		} else {
			_, err = l.kv.Update(ctx, key, val, rev)
		}
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// Another replica counted in between: read again.
	}
	return &planner.RateLimitedError{RetryAfter: time.Second}
}

// limitsOf is the limiter as the planner's Limits: each of the planner's
// limits at its configured rate.
type limitsOf struct {
	l     *limiter
	rates RateLimits
}

// Allow implements planner.Limits.
func (l limitsOf) Allow(ctx context.Context, limit planner.Limit, subject string) error {
	rate := map[planner.Limit]RateLimit{
		planner.LimitCreate: l.rates.Create, planner.LimitUpload: l.rates.Upload, planner.LimitDuplicate: l.rates.Duplicate,
		planner.LimitRecompute: l.rates.Recompute, planner.LimitPublic: l.rates.Public,
	}[limit]
	return l.l.allow(ctx, string(limit), subject, rate)
}
