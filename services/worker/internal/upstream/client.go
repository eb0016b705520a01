package upstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
	"golang.org/x/sync/singleflight"
)

// Client is the one way Roadbook calls a third-party HTTP service. A call
// goes: cache → singleflight (identical in-flight requests share one) →
// Retry-After hold and breaker check → pacer slot → HTTP exchange inside the
// breaker → bounded body read → cache. It is safe for concurrent use; build
// one per upstream and share it.
type Client struct {
	name    string
	base    *url.URL
	cfg     config
	http    *http.Client
	breaker *gobreaker.CircuitBreaker[*Response]
	group   singleflight.Group

	mu      sync.Mutex
	flights map[string]*flight

	// holdUntil is the Unix-nano time before which no request is sent: the
	// longest Retry-After the upstream asked for.
	holdUntil atomic.Int64
	// tripNow makes the breaker open on the next failure regardless of the
	// consecutive-failure count (429 or an explicit Retry-After).
	tripNow atomic.Bool
}

// Request is one call. Only Path (joined under the base URL) and Query come
// from the caller, never a host: callers cannot aim a client elsewhere.
type Request struct {
	// Method is GET (default) or POST.
	Method string
	// Path starts with "/" and must not contain "..", "?" or "#".
	Path string
	// Query is encoded onto the URL.
	Query url.Values
	// Header adds request headers (e.g. Accept-Language); they are part of
	// the cache key.
	Header http.Header
	// Body is sent with POST, with ContentType.
	Body        []byte
	ContentType string
	// NoCache skips the cache for this call (read and write).
	NoCache bool
}

// Response is a successful (2xx) answer. It may be shared between callers
// (singleflight, cache): treat Body as read-only.
type Response struct {
	// Status is the HTTP status, 200 for a cache hit.
	Status int
	// Header is the response header; nil for a cache hit.
	Header http.Header
	// Body is the whole body, at most the configured bound.
	Body []byte
	// Cached says the body came from the cache.
	Cached bool
}

// New builds a client for the upstream called name (used in errors, metric
// labels and pacer keys). WithBaseURL and WithUserAgent are required; every
// option is validated here.
func New(name string, opts ...Option) (*Client, error) {
	cfg := config{
		timeout:          DefaultTimeout,
		maxBody:          DefaultMaxBodyBytes,
		maxRedirects:     DefaultMaxRedirects,
		retryBackoff:     DefaultRetryBackoff,
		failureThreshold: DefaultFailureThreshold,
		openTimeout:      DefaultOpenTimeout,
	}
	pacer, _ := NewLocalPacer(DefaultPaceInterval)
	cfg.pacer = pacer
	for _, o := range opts {
		o(&cfg)
	}
	base, err := cfg.validate(name)
	if err != nil {
		return nil, err
	}
	c := &Client{name: name, base: base, cfg: cfg, flights: map[string]*flight{}}
	transport := cfg.transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	c.http = &http.Client{Transport: transport, CheckRedirect: c.checkRedirect}
	c.breaker = gobreaker.NewCircuitBreaker[*Response](gobreaker.Settings{
		Name:        name,
		MaxRequests: 1,
		Timeout:     cfg.openTimeout,
		ReadyToTrip: func(counts gobreaker.Counts) bool {
			return c.tripNow.Swap(false) || counts.ConsecutiveFailures >= cfg.failureThreshold
		},
		OnStateChange: func(_ string, _, to gobreaker.State) { c.setStateGauge(to) },
		IsSuccessful:  isHealthy,
		IsExcluded:    isCanceled,
	})
	c.setStateGauge(gobreaker.StateClosed)
	if cfg.metrics != nil { // the wait series exists (count 0) before the first wait
		cfg.metrics.pacerWait.WithLabelValues(name)
	}
	return c, nil
}

// Name is the upstream's name.
func (c *Client) Name() string { return c.name }

// BreakerOpen reports whether calls are being refused right now (breaker
// open or a Retry-After hold), and for how long at least.
func (c *Client) BreakerOpen() (bool, time.Duration) {
	if d := c.holdRemaining(); d > 0 {
		return true, d
	}
	if c.breaker.State() == gobreaker.StateOpen {
		return true, c.cfg.openTimeout
	}
	return false, 0
}

// Do performs req. It returns a *Response for a 2xx answer, the caller's
// context error (unwrapped) when ctx ends, and otherwise an [*Error] whose
// Kind is one of the sentinel errors.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	u, err := c.resolve(req)
	if err != nil {
		c.count(err)
		return nil, err
	}
	key := cacheKey(req, u)
	if !req.NoCache && c.cfg.cache != nil {
		if body, ok, cerr := c.cfg.cache.Get(ctx, key); cerr == nil && ok {
			c.countOutcome("cached")
			return &Response{Status: http.StatusOK, Body: body, Cached: true}, nil
		}
	}
	for {
		resp, err := c.shared(ctx, key, func(fctx context.Context) (*Response, error) {
			// Check the cache again inside the flight: a caller that missed
			// the cache just before an identical flight finished (and
			// filled it) would otherwise start a second request.
			if !req.NoCache && c.cfg.cache != nil {
				if body, ok, cerr := c.cfg.cache.Get(fctx, key); cerr == nil && ok {
					return &Response{Status: http.StatusOK, Body: body, Cached: true}, nil
				}
			}
			return c.withRetries(fctx, req, u, key)
		})
		// The flight we joined may have been abandoned by everyone else
		// (their contexts ended) just as we joined: try again with our own.
		if err != nil && isCanceled(err) && ctx.Err() == nil {
			continue
		}
		if err != nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		c.count(err)
		return resp, err
	}
}

// resolve joins the request path under the base URL, refusing anything that
// could leave it.
func (c *Client) resolve(req Request) (*url.URL, error) {
	switch req.Method {
	case "", http.MethodGet, http.MethodPost:
	default:
		return nil, &Error{Upstream: c.name, Kind: ErrRefused, Reason: fmt.Sprintf("method %q is not allowed", req.Method)}
	}
	p := req.Path
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "..") || strings.ContainsAny(p, "?#\\") || strings.HasPrefix(p, "//") {
		return nil, &Error{Upstream: c.name, Kind: ErrRefused, Reason: fmt.Sprintf("path %q must be absolute without '..', '?', '#' or '\\'", p)}
	}
	u := *c.base
	u.Path = c.base.Path + p
	u.RawQuery = req.Query.Encode()
	return &u, nil
}

// flight is one shared in-flight call; it runs on its own context that ends
// only when every waiter has gone.
type flight struct {
	ctx     context.Context
	cancel  context.CancelFunc
	waiters int
}

// shared runs fn once for all concurrent callers with the same key
// (singleflight). The call keeps going while at least one caller waits.
func (c *Client) shared(ctx context.Context, key string, fn func(context.Context) (*Response, error)) (*Response, error) {
	c.mu.Lock()
	f := c.flights[key]
	if f == nil {
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{ctx: fctx, cancel: cancel}
		c.flights[key] = f
	}
	f.waiters++
	c.mu.Unlock()
	leave := func() {
		c.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			f.cancel()
			if c.flights[key] == f {
				delete(c.flights, key)
			}
		}
		c.mu.Unlock()
	}
	ch := c.group.DoChan(key, func() (any, error) { return fn(f.ctx) })
	select {
	case r := <-ch:
		leave()
		resp, _ := r.Val.(*Response)
		return resp, r.Err
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

// withRetries runs attempts until success, a non-transient error or the
// retry budget is spent; a success is written to the cache.
func (c *Client) withRetries(ctx context.Context, req Request, u *url.URL, key string) (*Response, error) {
	backoff := c.cfg.retryBackoff
	for attempt := 0; ; attempt++ {
		resp, err := c.attempt(ctx, req, u)
		if err == nil {
			if !req.NoCache && c.cfg.cache != nil {
				_ = c.cfg.cache.Put(ctx, key, resp.Body) // advisory: a failing cache is a miss next time
			}
			return resp, nil
		}
		if attempt >= c.cfg.retries || !retryable(err) {
			return nil, err
		}
		if serr := sleepUntil(ctx, time.Now().Add(backoff)); serr != nil {
			return nil, serr
		}
		backoff *= 2
	}
}

// attempt is one paced exchange through the breaker.
func (c *Client) attempt(ctx context.Context, req Request, u *url.URL) (*Response, error) {
	if open, d := c.BreakerOpen(); open {
		return nil, c.openError(d)
	}
	start := time.Now()
	if err := c.cfg.pacer.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Upstream: c.name, Kind: ErrUnavailable, Reason: "rate limiter unavailable", Err: err}
	}
	if c.cfg.metrics != nil {
		c.cfg.metrics.pacerWait.WithLabelValues(c.name).Observe(time.Since(start).Seconds())
	}
	// The hold may have started while we waited for our slot.
	if d := c.holdRemaining(); d > 0 {
		return nil, c.openError(d)
	}
	resp, err := c.breaker.Execute(func() (*Response, error) { return c.send(ctx, req, u) })
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return nil, c.openError(max(c.holdRemaining(), time.Second))
	}
	return resp, err
}

func (c *Client) openError(d time.Duration) *Error {
	return &Error{Upstream: c.name, Kind: ErrCircuitOpen, RetryAfter: d, Reason: "circuit breaker open"}
}

// send performs the HTTP exchange and classifies its outcome.
func (c *Client) send(ctx context.Context, req Request, u *url.URL) (*Response, error) {
	rctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if method == http.MethodPost {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(rctx, method, u.String(), body)
	if err != nil {
		return nil, &Error{Upstream: c.name, Kind: ErrRefused, Reason: "cannot build request", Err: err}
	}
	for k, vs := range c.cfg.header {
		hr.Header[k] = slices.Clone(vs)
	}
	for k, vs := range req.Header {
		hr.Header[k] = slices.Clone(vs)
	}
	if req.ContentType != "" {
		hr.Header.Set("Content-Type", req.ContentType)
	}
	hr.Header.Set("User-Agent", c.cfg.userAgent)
	res, err := c.http.Do(hr)
	if err != nil {
		return nil, c.transportError(ctx, rctx, err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		e := statusError(c.name, res.StatusCode, res.Header, time.Now())
		if e.Kind == ErrRateLimited || e.RetryAfter > 0 {
			c.hold(e.RetryAfter)
			c.tripNow.Store(true)
		}
		return nil, e
	}
	if res.ContentLength > c.cfg.maxBody {
		return nil, c.tooLarge()
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, c.cfg.maxBody+1))
	if err != nil {
		return nil, c.transportError(ctx, rctx, err)
	}
	if int64(len(data)) > c.cfg.maxBody {
		return nil, c.tooLarge()
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: data}, nil
}

func (c *Client) tooLarge() *Error {
	return &Error{Upstream: c.name, Kind: ErrBodyTooLarge, Reason: fmt.Sprintf("response body exceeds %d bytes", c.cfg.maxBody)}
}

// transportError classifies an error with no HTTP status: the caller's
// context ending (returned as is, excluded from the breaker), our own
// timeout, a refusal, or a connection failure.
func (c *Client) transportError(ctx, rctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ref *Refusal
	if errors.As(err, &ref) {
		return &Error{Upstream: c.name, Kind: ErrRefused, Reason: ref.Reason}
	}
	var ne net.Error
	if rctx.Err() != nil || (errors.As(err, &ne) && ne.Timeout()) {
		return &Error{Upstream: c.name, Kind: ErrUnavailable, Reason: fmt.Sprintf("timed out after %s", c.cfg.timeout)}
	}
	return &Error{Upstream: c.name, Kind: ErrUnavailable, Reason: "connection failed", Err: errors.Unwrap(err)}
}

// Refusal is returned (possibly wrapped) by a transport or dialer that
// refuses a request on policy grounds — the SSRF guard, a redirect off the
// host. The client reports it as ErrRefused with Reason, does not retry it
// and does not count it against the upstream's health.
type Refusal struct {
	// Reason names the rule, e.g. "address 10.0.0.1 is private".
	Reason string
}

// Error implements error.
func (r *Refusal) Error() string { return "refused: " + r.Reason }

// checkRedirect follows at most maxRedirects redirects, only to the same
// scheme and host as the original request.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.cfg.maxRedirects {
		return &Refusal{Reason: fmt.Sprintf("more than %d redirects", c.cfg.maxRedirects)}
	}
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return &Refusal{Reason: fmt.Sprintf("redirect to another host (%s)", req.URL.Host)}
	}
	req.Header.Set("User-Agent", c.cfg.userAgent)
	return nil
}

func (c *Client) hold(d time.Duration) {
	if d <= 0 {
		return
	}
	until := time.Now().Add(d).UnixNano()
	for {
		cur := c.holdUntil.Load()
		if cur >= until || c.holdUntil.CompareAndSwap(cur, until) {
			return
		}
	}
}

func (c *Client) holdRemaining() time.Duration {
	return time.Until(time.Unix(0, c.holdUntil.Load()))
}

func (c *Client) setStateGauge(s gobreaker.State) {
	if c.cfg.metrics == nil {
		return
	}
	v := BreakerClosed
	switch s {
	case gobreaker.StateHalfOpen:
		v = BreakerHalfOpen
	case gobreaker.StateOpen:
		v = BreakerOpen
	}
	c.cfg.metrics.breakerState.WithLabelValues(c.name).Set(float64(v))
}

func (c *Client) count(err error) { c.countOutcome(outcome(err)) }

func (c *Client) countOutcome(o string) {
	if c.cfg.metrics != nil {
		c.cfg.metrics.requests.WithLabelValues(c.name, o).Inc()
	}
}

// isHealthy says which errors do not count against the upstream: answers
// about the request itself rather than the service's health.
func isHealthy(err error) bool {
	return err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrForbidden) ||
		errors.Is(err, ErrRejected) || errors.Is(err, ErrBodyTooLarge) || errors.Is(err, ErrRefused)
}

// isCanceled: the caller gave up; neither success nor failure.
func isCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// retryable: transient upstream failures without a Retry-After hint.
func retryable(err error) bool {
	var ue *Error
	return errors.As(err, &ue) && ue.Kind == ErrUnavailable && ue.RetryAfter == 0
}

// cacheKey identifies a request: method, URL, the caller's headers and a
// digest of the body.
func cacheKey(req Request, u *url.URL) string {
	var b strings.Builder
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	b.WriteString(method)
	b.WriteByte(' ')
	b.WriteString(u.String())
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString("\n" + k + ": " + strings.Join(req.Header[k], ","))
	}
	if len(req.Body) > 0 {
		sum := sha256.Sum256(req.Body)
		b.WriteString("\nbody " + hex.EncodeToString(sum[:]))
	}
	return b.String()
}
