package nominatim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// PublicBaseURL is the public instance, whose usage policy the defaults
// below keep.
const PublicBaseURL = "https://nominatim.openstreetmap.org"

// PaceInterval is the spacing of requests to the public instance: its limit
// is 1 request/s for the whole application; 1.1 s leaves room for clock
// jitter between replicas.
const PaceInterval = 1100 * time.Millisecond

// CacheTTL is how long answers are shared between replicas (DOMAIN §7).
const CacheTTL = 24 * time.Hour

// Client is the Nominatim geocoder. Safe for concurrent use.
type Client struct {
	up *upstream.Client
}

// New wraps an upstream client built for Nominatim (base URL, User-Agent,
// KV pacer at PaceInterval, KV cache with CacheTTL, breaker). It is the only
// constructor so that no Nominatim request can bypass the mechanism.
func New(up *upstream.Client) (*Client, error) {
	if up == nil {
		return nil, errors.New("nominatim: upstream client is nil")
	}
	return &Client{up: up}, nil
}

// Name implements geocode.Geocoder.
func (c *Client) Name() string { return "nominatim" }

// Search implements geocode.Geocoder with /search?format=jsonv2.
func (c *Client) Search(ctx context.Context, query string, limit int) ([]geocode.Place, error) {
	query = strings.TrimSpace(query)
	if n := utf8.RuneCountInString(query); n < 2 || n > 200 {
		return nil, fmt.Errorf("%w: query must be 2–200 characters, got %d", geocode.ErrInvalidArgument, n)
	}
	if limit < 1 || limit > 10 {
		return nil, fmt.Errorf("%w: limit must be 1–10, got %d", geocode.ErrInvalidArgument, limit)
	}
	resp, err := c.up.Do(ctx, upstream.Request{Path: "/search", Query: url.Values{
		"q": {query}, "format": {"jsonv2"}, "addressdetails": {"1"}, "limit": {strconv.Itoa(limit)},
	}})
	if err != nil {
		return nil, translate(err)
	}
	geocode.NoteCache(ctx, resp.Cached)
	return parseSearch(resp.Body)
}

// Reverse implements geocode.Geocoder with /reverse?format=jsonv2. The point
// is rounded to 5 decimals (about a metre) so nearby asks share a cache
// entry.
func (c *Client) Reverse(ctx context.Context, lat, lon float64) (geocode.Place, error) {
	if math.IsNaN(lat) || math.IsNaN(lon) || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return geocode.Place{}, fmt.Errorf("%w: lat %v lon %v is outside WGS-84", geocode.ErrInvalidArgument, lat, lon)
	}
	resp, err := c.up.Do(ctx, upstream.Request{Path: "/reverse", Query: url.Values{
		"lat": {round5(lat)}, "lon": {round5(lon)},
		"format": {"jsonv2"}, "addressdetails": {"1"}, "zoom": {"14"},
	}})
	if err != nil {
		return geocode.Place{}, translate(err)
	}
	geocode.NoteCache(ctx, resp.Cached)
	return parseReverse(resp.Body)
}

// translate is the one place upstream errors become geocode errors. The
// upstream error stays wrapped, so geocode.RetryAfter still finds its hint.
func translate(err error) error {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, upstream.ErrRateLimited):
		return fmt.Errorf("%w: %w", geocode.ErrRateLimited, err)
	case errors.Is(err, upstream.ErrRejected):
		return fmt.Errorf("%w: %w", geocode.ErrInvalidArgument, err)
	default: // unavailable, circuit open, forbidden (a ban), not found, too large, refused
		return fmt.Errorf("%w: %w", geocode.ErrUnavailable, err)
	}
}

func round5(v float64) string { return strconv.FormatFloat(math.Round(v*1e5)/1e5, 'f', -1, 64) }
