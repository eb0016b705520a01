package geocode

import (
	"context"
	"errors"
	"time"

	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// Place is one geocoding result, the same shape whichever geocoder answered
// so the responder and the labeller never care which one is configured.
type Place struct {
	// Name is the short name ("Oslo").
	Name string
	// Lat and Lon are WGS-84 degrees.
	Lat, Lon float64
	// DisplayName is the full human-readable name ("Oslo, NO" or Nominatim's
	// display_name).
	DisplayName string
	// Type is the place type as the geocoder gives it ("city", "village"…).
	Type string
}

// Geocoder finds places by text and names the place at a point. Implementations
// are the offline gazetteer (default) and the Nominatim client.
type Geocoder interface {
	// Search returns up to limit (1–10) places matching query, best first; no
	// match is an empty slice, not an error.
	Search(ctx context.Context, query string, limit int) ([]Place, error)
	// Reverse names the place at a point; ErrNoPlace when the geocoder knows
	// none there.
	Reverse(ctx context.Context, lat, lon float64) (Place, error)
	// Name identifies the geocoder in LabelsResolved events ("gazetteer",
	// "nominatim").
	Name() string
}

// ErrNoPlace is Reverse's answer when there is no place at a point. It is a
// normal outcome (open sea, wilderness), distinct from a failing provider.
var ErrNoPlace = errors.New("geocode: no place at this point")

// ErrInvalidArgument marks requests a geocoder refuses as malformed (empty
// query, out-of-range coordinates, limit out of 1–10); the responder maps it to
// the invalid_argument code.
var ErrInvalidArgument = errors.New("geocode: invalid argument")

// ErrUnavailable marks a provider that cannot answer now (breaker open,
// upstream down); callers retry later and stage labels show "unavailable".
var ErrUnavailable = errors.New("geocode: provider unavailable")

// ErrRateLimited marks a request refused by a rate limit (the provider's 429
// or the label queue's full search line); RetryAfter says when to come back.
var ErrRateLimited = errors.New("geocode: rate limited")

// RetryAfter is how long to wait before asking again, when err carries a hint
// (a provider's Retry-After, an open breaker, a full queue); 0 otherwise.
func RetryAfter(err error) time.Duration {
	var q *queueFullError
	if errors.As(err, &q) {
		return q.after
	}
	d, _ := upstream.RetryAfter(err)
	return d
}
