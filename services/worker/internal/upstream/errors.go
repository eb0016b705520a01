package upstream

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors every caller matches with errors.Is. Each error returned by
// [Client.Do] is an [*Error] that unwraps to exactly one of them (plus, for
// ErrCircuitOpen, ErrUnavailable), so a boundary translates them in one place.
var (
	// ErrRateLimited: the upstream answered 429. The breaker is held open for
	// at least the Retry-After the upstream asked for; [RetryAfter] reports it.
	ErrRateLimited = errors.New("upstream: rate limited")
	// ErrUnavailable: the upstream failed (5xx, timeout, connection error) or
	// cannot be called right now. Transient; retry later.
	ErrUnavailable = errors.New("upstream: unavailable")
	// ErrCircuitOpen: the breaker is open, no request was sent. It is also an
	// ErrUnavailable, so callers that do not care why can match that alone.
	ErrCircuitOpen = fmt.Errorf("%w: circuit open", ErrUnavailable)
	// ErrNotFound: the upstream answered 404. Not an outage: the breaker
	// counts it as a success.
	ErrNotFound = errors.New("upstream: not found")
	// ErrForbidden: the upstream answered 401 or 403 (a private resource, or a
	// ban). Not retried.
	ErrForbidden = errors.New("upstream: forbidden")
	// ErrRejected: any other 4xx — the request itself is wrong. Not retried.
	ErrRejected = errors.New("upstream: request rejected")
	// ErrBodyTooLarge: the response body exceeded the configured bound; the
	// read stopped there.
	ErrBodyTooLarge = errors.New("upstream: response body too large")
	// ErrRefused: the request was refused before it left the process (a bad
	// path, a redirect to another host, too many redirects, or a dial the
	// transport refused — e.g. the SSRF guard of internal/fetch).
	ErrRefused = errors.New("upstream: request refused")
	// ErrInvalidOption: [New] was given an option that cannot work.
	ErrInvalidOption = errors.New("upstream: invalid option")
)

// Error is the one error type [Client.Do] returns. It names the upstream, the
// HTTP status when there was one, how long the upstream asked us to wait, and
// a human reason; Unwrap gives the sentinel (Kind) and the cause.
type Error struct {
	// Upstream is the client's name ("nominatim", "komoot", …).
	Upstream string
	// Kind is one of the sentinel errors above.
	Kind error
	// Status is the HTTP status code, 0 when no response arrived.
	Status int
	// RetryAfter is how long to wait before trying again (429 or open
	// breaker); 0 when unknown.
	RetryAfter time.Duration
	// Reason says what happened, for logs and user-facing messages.
	Reason string
	// Err is the underlying cause, if any.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Upstream)
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Status != 0 {
		b.WriteString(" (HTTP ")
		b.WriteString(strconv.Itoa(e.Status))
		b.WriteString(")")
	}
	if e.RetryAfter > 0 {
		b.WriteString(", retry after ")
		b.WriteString(e.RetryAfter.Round(time.Second).String())
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap exposes both the sentinel kind and the cause to errors.Is/As.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// RetryAfter reports how long the upstream (or the open breaker) asked the
// caller to wait, when err carries such a hint.
func RetryAfter(err error) (time.Duration, bool) {
	var ue *Error
	if errors.As(err, &ue) && ue.RetryAfter > 0 {
		return ue.RetryAfter, true
	}
	return 0, false
}

// statusError classifies a non-2xx response into the sentinel kinds.
func statusError(name string, status int, h http.Header, now time.Time) *Error {
	e := &Error{Upstream: name, Status: status}
	switch {
	case status == http.StatusTooManyRequests:
		e.Kind, e.Reason = ErrRateLimited, "rate limited by upstream"
		e.RetryAfter = parseRetryAfter(h.Get("Retry-After"), now)
	case status >= 500:
		e.Kind, e.Reason = ErrUnavailable, "upstream server error"
		e.RetryAfter = parseRetryAfter(h.Get("Retry-After"), now)
	case status == http.StatusNotFound || status == http.StatusGone:
		e.Kind, e.Reason = ErrNotFound, "not found"
	case status == http.StatusForbidden || status == http.StatusUnauthorized:
		e.Kind, e.Reason = ErrForbidden, "access denied"
	default:
		e.Kind, e.Reason = ErrRejected, "request rejected"
	}
	return e
}

// parseRetryAfter reads the two forms of RFC 9110 §10.2.3: delay-seconds or
// an HTTP date. Anything else is 0 (unknown).
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		const maxHint = 24 * 60 * 60
		return time.Duration(min(n, maxHint)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, 24*time.Hour)
		}
	}
	return 0
}
