package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

const testUA = "Roadbook-test/1.0 (tests@roadbook.invalid)"

// fastPacer keeps tests quick while still going through a real pacer.
func fastPacer(t *testing.T) Pacer {
	t.Helper()
	p, err := NewLocalPacer(time.Millisecond)
	require.NoError(t, err)
	return p
}

func newTestClient(t *testing.T, srv *httptest.Server, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithBaseURL(srv.URL), WithUserAgent(testUA), WithPacer(fastPacer(t))}, opts...)
	c, err := New("test", all...)
	require.NoError(t, err)
	return c
}

func TestNewValidatesOptions(t *testing.T) {
	t.Parallel()
	ok := []Option{WithBaseURL("https://nominatim.example"), WithUserAgent(testUA)}
	cases := map[string][]Option{
		"a missing base URL":        {WithUserAgent(testUA)},
		"a base URL without a host": {WithBaseURL("https:///x"), WithUserAgent(testUA)},
		"a non-HTTP base URL":       {WithBaseURL("ftp://example.org"), WithUserAgent(testUA)},
		"a base URL with a query":   {WithBaseURL("https://example.org/?a=1"), WithUserAgent(testUA)},
		"a missing User-Agent":      {WithBaseURL("https://example.org")},
		"Go's default User-Agent":   {WithBaseURL("https://example.org"), WithUserAgent("Go-http-client/1.1")},
		"a zero timeout":            append(ok, WithTimeout(0)),
		"a zero body bound":         append(ok, WithMaxBodyBytes(0)),
		"negative redirects":        append(ok, WithMaxRedirects(-1)),
		"too many retries":          append(ok, WithRetries(9, time.Second)),
		"retries without backoff":   append(ok, WithRetries(1, 0)),
		"a nil pacer":               append(ok, WithPacer(nil)),
		"a zero failure threshold":  append(ok, WithBreaker(0, time.Second)),
		"a zero open timeout":       append(ok, WithBreaker(3, 0)),
	}
	for name, opts := range cases {
		t.Run("refuses "+name, func(t *testing.T) {
			t.Parallel()
			_, err := New("nominatim", opts...)
			require.ErrorIs(t, err, ErrInvalidOption)
		})
	}
	t.Run("refuses an empty name", func(t *testing.T) {
		t.Parallel()
		_, err := New("", ok...)
		require.ErrorIs(t, err, ErrInvalidOption)
	})
	t.Run("accepts a complete configuration", func(t *testing.T) {
		t.Parallel()
		_, err := New("nominatim", ok...)
		require.NoError(t, err)
	})
}

func TestClientDo(t *testing.T) {
	t.Parallel()

	t.Run("sends the User-Agent and path under the base URL, then serves from the cache", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			require.Equal(t, testUA, r.Header.Get("User-Agent"))
			require.Equal(t, "/api/search", r.URL.Path)
			require.Equal(t, "Hamburg", r.URL.Query().Get("q"))
			_, _ = w.Write([]byte(`[{"name":"Hamburg"}]`))
		}))
		t.Cleanup(srv.Close)
		cache, err := NewLRUCache(10, time.Hour)
		require.NoError(t, err)
		srvURL := srv.URL
		c, err := New("test", WithBaseURL(srvURL+"/api/"), WithUserAgent(testUA), WithPacer(fastPacer(t)), WithCache(cache))
		require.NoError(t, err)
		req := Request{Path: "/search", Query: url.Values{"q": {"Hamburg"}}}
		resp, err := c.Do(context.Background(), req)
		require.NoError(t, err)
		require.False(t, resp.Cached)
		require.JSONEq(t, `[{"name":"Hamburg"}]`, string(resp.Body))
		resp, err = c.Do(context.Background(), req)
		require.NoError(t, err)
		require.True(t, resp.Cached)
		require.Equal(t, int32(1), hits.Load())
	})

	t.Run("refuses paths that could leave the base URL", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("no request expected") }))
		t.Cleanup(srv.Close)
		c := newTestClient(t, srv)
		for _, p := range []string{"search", "//evil.example/x", "/a/../b", "/a?x=1", "/a#f"} {
			_, err := c.Do(context.Background(), Request{Path: p})
			require.ErrorIs(t, err, ErrRefused, p)
		}
	})

	t.Run("identical concurrent requests share one exchange", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			<-release
			_, _ = w.Write([]byte(`ok`))
		}))
		t.Cleanup(srv.Close)
		c := newTestClient(t, srv)
		const n = 10
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Go(func() {
				resp, err := c.Do(context.Background(), Request{Path: "/same"})
				if err == nil && string(resp.Body) != "ok" {
					err = errors.New("wrong body " + string(resp.Body))
				}
				errs <- err
			})
		}
		require.Eventually(t, func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, f := range c.flights {
				return f.waiters == n
			}
			return false
		}, 5*time.Second, time.Millisecond)
		close(release)
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Equal(t, int32(1), hits.Load())
	})

	t.Run("a shared exchange survives one waiter giving up", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-release
			_, _ = w.Write([]byte(`ok`))
		}))
		t.Cleanup(srv.Close)
		c := newTestClient(t, srv)
		quitter, quit := context.WithCancel(context.Background())
		quitErr := make(chan error, 1)
		go func() { _, err := c.Do(quitter, Request{Path: "/x"}); quitErr <- err }()
		stayErr := make(chan error, 1)
		go func() { _, err := c.Do(context.Background(), Request{Path: "/x"}); stayErr <- err }()
		require.Eventually(t, func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			f := c.flights[cacheKey(Request{Path: "/x"}, mustURL(t, srv.URL+"/x"))]
			return f != nil && f.waiters == 2
		}, 5*time.Second, time.Millisecond)
		quit()
		require.ErrorIs(t, <-quitErr, context.Canceled)
		close(release)
		require.NoError(t, <-stayErr)
	})

	t.Run("maps statuses to sentinel errors", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/404":
				w.WriteHeader(http.StatusNotFound)
			case "/403":
				w.WriteHeader(http.StatusForbidden)
			case "/400":
				w.WriteHeader(http.StatusBadRequest)
			}
		}))
		t.Cleanup(srv.Close)
		c := newTestClient(t, srv, WithBreaker(1, time.Hour))
		_, err := c.Do(context.Background(), Request{Path: "/404"})
		require.ErrorIs(t, err, ErrNotFound)
		_, err = c.Do(context.Background(), Request{Path: "/403"})
		require.ErrorIs(t, err, ErrForbidden)
		_, err = c.Do(context.Background(), Request{Path: "/400"})
		require.ErrorIs(t, err, ErrRejected)
		var ue *Error
		require.ErrorAs(t, err, &ue)
		require.Equal(t, 400, ue.Status)
		open, _ := c.BreakerOpen()
		require.False(t, open, "answers about the request are not outages")
	})

	t.Run("bounds the body", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/chunked" {
				w.(http.Flusher).Flush() // no Content-Length: the read must stop by itself
			}
			_, _ = w.Write([]byte(strings.Repeat("x", 2048)))
		}))
		t.Cleanup(srv.Close)
		c := newTestClient(t, srv, WithMaxBodyBytes(1024))
		_, err := c.Do(context.Background(), Request{Path: "/sized"})
		require.ErrorIs(t, err, ErrBodyTooLarge)
		_, err = c.Do(context.Background(), Request{Path: "/chunked"})
		require.ErrorIs(t, err, ErrBodyTooLarge)
	})

	t.Run("follows redirects only on the same host and at most the limit", func(t *testing.T) {
		t.Parallel()
		var otherHits atomic.Int32
		other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { otherHits.Add(1) }))
		t.Cleanup(other.Close)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/one":
				http.Redirect(w, r, "/final", http.StatusFound)
			case "/final":
				_, _ = w.Write([]byte("final"))
			case "/away":
				http.Redirect(w, r, other.URL+"/x", http.StatusFound)
			case "/loop":
				http.Redirect(w, r, "/loop", http.StatusFound)
			}
		}))
		t.Cleanup(srv.Close)
		c := newTestClient(t, srv)
		resp, err := c.Do(context.Background(), Request{Path: "/one"})
		require.NoError(t, err)
		require.Equal(t, "final", string(resp.Body))
		_, err = c.Do(context.Background(), Request{Path: "/away"})
		require.ErrorIs(t, err, ErrRefused)
		require.ErrorContains(t, err, "redirect to another host")
		_, err = c.Do(context.Background(), Request{Path: "/loop"})
		require.ErrorIs(t, err, ErrRefused)
		require.ErrorContains(t, err, "more than 2 redirects")
		require.Zero(t, otherHits.Load())
	})

	t.Run("retries transient failures and then succeeds", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) <= 2 {
				w.WriteHeader(http.StatusBadGateway)
				return
			}
			_, _ = w.Write([]byte("ok"))
		}))
		t.Cleanup(srv.Close)
		c := newTestClient(t, srv, WithRetries(2, time.Millisecond))
		resp, err := c.Do(context.Background(), Request{Path: "/x"})
		require.NoError(t, err)
		require.Equal(t, "ok", string(resp.Body))
		require.Equal(t, int32(3), hits.Load())
	})

	t.Run("a timeout is an unavailable upstream", func(t *testing.T) {
		t.Parallel()
		done := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-done:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(func() { close(done); srv.Close() })
		c := newTestClient(t, srv, WithTimeout(20*time.Millisecond), WithBreaker(1, time.Hour))
		_, err := c.Do(context.Background(), Request{Path: "/slow"})
		require.ErrorIs(t, err, ErrUnavailable)
		require.ErrorContains(t, err, "timed out")
		open, _ := c.BreakerOpen()
		require.True(t, open, "a timeout trips the breaker")
	})
}

func TestBreaker(t *testing.T) {
	t.Parallel()

	t.Run("a 429 with Retry-After opens it at once, holds it, then a half-open probe closes it", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		var limited atomic.Bool
		limited.Store(true)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			if limited.Load() {
				w.Header().Set("Retry-After", "1")
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte("<html><body>Too Many Requests</body></html>"))
				return
			}
			_, _ = w.Write([]byte("ok"))
		}))
		t.Cleanup(srv.Close)
		reg := prometheus.NewRegistry()
		m, err := NewMetrics(reg)
		require.NoError(t, err)
		c := newTestClient(t, srv, WithBreaker(5, 10*time.Millisecond), WithMetrics(m))

		_, err = c.Do(context.Background(), Request{Path: "/a"})
		require.ErrorIs(t, err, ErrRateLimited)
		d, ok := RetryAfter(err)
		require.True(t, ok)
		require.Equal(t, time.Second, d)
		require.Equal(t, float64(BreakerOpen), testutil.ToFloat64(m.breakerState.WithLabelValues("test")))

		_, err = c.Do(context.Background(), Request{Path: "/b"})
		require.ErrorIs(t, err, ErrCircuitOpen)
		require.ErrorIs(t, err, ErrUnavailable)
		_, ok = RetryAfter(err)
		require.True(t, ok)
		require.Equal(t, int32(1), hits.Load(), "an open breaker sends nothing, even after its own timeout, until Retry-After")

		limited.Store(false)
		time.Sleep(time.Second)
		resp, err := c.Do(context.Background(), Request{Path: "/c"})
		require.NoError(t, err)
		require.Equal(t, "ok", string(resp.Body))
		require.Equal(t, float64(BreakerClosed), testutil.ToFloat64(m.breakerState.WithLabelValues("test")))
		require.Equal(t, int32(2), hits.Load())
		require.Equal(t, 1.0, testutil.ToFloat64(m.requests.WithLabelValues("test", "rate_limited")))
		require.Equal(t, 1.0, testutil.ToFloat64(m.requests.WithLabelValues("test", "circuit_open")))
	})

	t.Run("consecutive 503s open it; it refuses without calling; a probe that succeeds closes it", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		var down atomic.Bool
		down.Store(true)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			if down.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte("ok"))
		}))
		t.Cleanup(srv.Close)
		c := newTestClient(t, srv, WithBreaker(3, 50*time.Millisecond))
		for range 3 {
			_, err := c.Do(context.Background(), Request{Path: "/x"})
			require.ErrorIs(t, err, ErrUnavailable)
			require.NotErrorIs(t, err, ErrCircuitOpen)
		}
		_, err := c.Do(context.Background(), Request{Path: "/x"})
		require.ErrorIs(t, err, ErrCircuitOpen)
		require.Equal(t, int32(3), hits.Load())

		time.Sleep(60 * time.Millisecond)
		// Half-open: the probe fails → open again.
		_, err = c.Do(context.Background(), Request{Path: "/x"})
		require.ErrorIs(t, err, ErrUnavailable)
		require.NotErrorIs(t, err, ErrCircuitOpen)
		_, err = c.Do(context.Background(), Request{Path: "/x"})
		require.ErrorIs(t, err, ErrCircuitOpen)
		require.Equal(t, int32(4), hits.Load())

		down.Store(false)
		time.Sleep(60 * time.Millisecond)
		_, err = c.Do(context.Background(), Request{Path: "/x"})
		require.NoError(t, err)
		open, _ := c.BreakerOpen()
		require.False(t, open)
	})

	t.Run("the caller's cancellation does not count as a failure", func(t *testing.T) {
		t.Parallel()
		entered := make(chan struct{}, 10)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			entered <- struct{}{}
			<-r.Context().Done()
		}))
		t.Cleanup(srv.Close)
		c := newTestClient(t, srv, WithBreaker(1, time.Hour))
		for i := range 3 {
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-entered; cancel() }()
			_, err := c.Do(ctx, Request{Path: "/x", Query: url.Values{"i": {string(rune('a' + i))}}})
			require.ErrorIs(t, err, context.Canceled)
		}
		open, _ := c.BreakerOpen()
		require.False(t, open)
	})
}

func TestMetrics(t *testing.T) {
	t.Parallel()

	t.Run("registering twice on one registry shares the collectors", func(t *testing.T) {
		t.Parallel()
		reg := prometheus.NewRegistry()
		a, err := NewMetrics(reg)
		require.NoError(t, err)
		b, err := NewMetrics(reg)
		require.NoError(t, err)
		require.Same(t, a.requests, b.requests)
	})

	t.Run("records the rate-limit wait", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
		t.Cleanup(srv.Close)
		reg := prometheus.NewRegistry()
		m, err := NewMetrics(reg)
		require.NoError(t, err)
		c := newTestClient(t, srv, WithMetrics(m))
		for i := range 3 {
			_, err := c.Do(context.Background(), Request{Path: "/x", Query: url.Values{"i": {string(rune('a' + i))}}})
			require.NoError(t, err)
		}
		n, err := testutil.GatherAndCount(reg, "roadbook_upstream_ratelimit_wait_seconds")
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, 3.0, testutil.ToFloat64(m.requests.WithLabelValues("test", "ok")))
		mfs, err := reg.Gather()
		require.NoError(t, err)
		for _, mf := range mfs {
			if mf.GetName() == "roadbook_upstream_ratelimit_wait_seconds" {
				require.Equal(t, uint64(3), mf.GetMetric()[0].GetHistogram().GetSampleCount())
			}
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	require.Equal(t, 120*time.Second, parseRetryAfter("120", now))
	require.Equal(t, 30*time.Second, parseRetryAfter(now.Add(30*time.Second).Format(http.TimeFormat), now))
	require.Zero(t, parseRetryAfter("soon", now))
	require.Zero(t, parseRetryAfter("-5", now))
	require.Equal(t, 24*time.Hour, parseRetryAfter("999999999", now))
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}
