package upstream

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults applied by [New] when an option is not given.
const (
	DefaultTimeout          = 10 * time.Second
	DefaultMaxBodyBytes     = 4 << 20
	DefaultMaxRedirects     = 2
	DefaultPaceInterval     = 100 * time.Millisecond
	DefaultFailureThreshold = 5
	DefaultOpenTimeout      = 30 * time.Second
	DefaultRetryBackoff     = 250 * time.Millisecond
)

// Option configures a [Client]. Options are checked together when [New]
// builds the client, so a bad configuration fails at start-up, not on the
// first request.
type Option func(*config)

type config struct {
	baseURL          string
	userAgent        string
	transport        http.RoundTripper
	timeout          time.Duration
	maxBody          int64
	maxRedirects     int
	retries          int
	retryBackoff     time.Duration
	pacer            Pacer
	cache            Cache
	failureThreshold uint32
	openTimeout      time.Duration
	metrics          *Metrics
	header           http.Header
}

// WithBaseURL sets the scheme, host and optional path prefix every request
// path is joined to (required). Making it configurable is how a deployment
// switches instance and how tests point a client at a local server.
func WithBaseURL(raw string) Option { return func(c *config) { c.baseURL = raw } }

// WithUserAgent sets the identifying User-Agent (required), e.g.
// "Roadbook/1.0 (+https://example.org; ops@example.org)". Public services
// such as Nominatim ban anonymous agents.
func WithUserAgent(ua string) Option { return func(c *config) { c.userAgent = ua } }

// WithTransport replaces the HTTP transport (e.g. the SSRF-guarded one of
// internal/fetch). Redirect policy, timeout and body bound stay the
// client's.
func WithTransport(rt http.RoundTripper) Option { return func(c *config) { c.transport = rt } }

// WithTimeout bounds each HTTP exchange (not the wait for a rate-limit
// slot). Default 10 s. A timeout counts as a breaker failure.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithMaxBodyBytes bounds a response body; reading stops there with
// ErrBodyTooLarge. Default 4 MiB.
func WithMaxBodyBytes(n int64) Option { return func(c *config) { c.maxBody = n } }

// WithMaxRedirects sets how many redirects are followed (default 2, 0 for
// none). Redirects are only ever followed to the same scheme and host.
func WithMaxRedirects(n int) Option { return func(c *config) { c.maxRedirects = n } }

// WithRetries retries transient failures (5xx without Retry-After, timeouts,
// connection errors) up to n more times, waiting backoff, 2·backoff, … in
// between. Each retry goes through the pacer and the breaker again. 429, an
// open breaker and 4xx are never retried. Default 0 retries.
func WithRetries(n int, backoff time.Duration) Option {
	return func(c *config) { c.retries, c.retryBackoff = n, backoff }
}

// WithPacer sets the rate limiter. Default: a [LocalPacer] of 100 ms. Use a
// [KVPacer] for an application-wide limit (Nominatim).
func WithPacer(p Pacer) Option { return func(c *config) { c.pacer = p } }

// WithCache caches successful (2xx) response bodies by request; the cache's
// own TTL applies ([KVCache] shared, [LRUCache] in-process). Default: none.
func WithCache(cache Cache) Option { return func(c *config) { c.cache = cache } }

// WithBreaker sets the circuit breaker: it opens after failureThreshold
// consecutive failures (or at once on 429 or a Retry-After), stays open
// openTimeout (or the Retry-After, whichever is longer), then lets one probe
// through half-open. Defaults 5 and 30 s.
func WithBreaker(failureThreshold uint32, openTimeout time.Duration) Option {
	return func(c *config) { c.failureThreshold, c.openTimeout = failureThreshold, openTimeout }
}

// WithMetrics reports breaker state, rate-limit waits and outcomes on m.
func WithMetrics(m *Metrics) Option { return func(c *config) { c.metrics = m } }

// WithHeader adds a header sent on every request (e.g. Accept).
func WithHeader(key, value string) Option {
	return func(c *config) {
		if c.header == nil {
			c.header = http.Header{}
		}
		c.header.Add(key, value)
	}
}

// validate checks the whole configuration and returns the parsed base URL.
func (c *config) validate(name string) (*url.URL, error) {
	if !validKVKey(name) || strings.ContainsAny(name, "./") {
		return nil, fmt.Errorf("%w: upstream name %q must be non-empty letters, digits, '-' or '_'", ErrInvalidOption, name)
	}
	if c.baseURL == "" {
		return nil, fmt.Errorf("%w: %s: base URL is required", ErrInvalidOption, name)
	}
	u, err := url.Parse(c.baseURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: base URL %q: %v", ErrInvalidOption, name, c.baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%w: %s: base URL %q must be http(s)://host[/prefix] without query, fragment or credentials", ErrInvalidOption, name, c.baseURL)
	}
	if strings.TrimSpace(c.userAgent) == "" || strings.HasPrefix(c.userAgent, "Go-http-client") {
		return nil, fmt.Errorf("%w: %s: an identifying User-Agent is required", ErrInvalidOption, name)
	}
	if c.timeout <= 0 {
		return nil, fmt.Errorf("%w: %s: timeout must be positive, got %s", ErrInvalidOption, name, c.timeout)
	}
	if c.maxBody <= 0 {
		return nil, fmt.Errorf("%w: %s: max body bytes must be positive, got %d", ErrInvalidOption, name, c.maxBody)
	}
	if c.maxRedirects < 0 || c.maxRedirects > 10 {
		return nil, fmt.Errorf("%w: %s: max redirects must be 0..10, got %d", ErrInvalidOption, name, c.maxRedirects)
	}
	if c.retries < 0 || c.retries > 5 {
		return nil, fmt.Errorf("%w: %s: retries must be 0..5, got %d", ErrInvalidOption, name, c.retries)
	}
	if c.retries > 0 && c.retryBackoff <= 0 {
		return nil, fmt.Errorf("%w: %s: retry backoff must be positive, got %s", ErrInvalidOption, name, c.retryBackoff)
	}
	if c.pacer == nil {
		return nil, fmt.Errorf("%w: %s: pacer is nil", ErrInvalidOption, name)
	}
	if c.failureThreshold == 0 {
		return nil, fmt.Errorf("%w: %s: breaker failure threshold must be ≥ 1", ErrInvalidOption, name)
	}
	if c.openTimeout <= 0 {
		return nil, fmt.Errorf("%w: %s: breaker open timeout must be positive, got %s", ErrInvalidOption, name, c.openTimeout)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}
