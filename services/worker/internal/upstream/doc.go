// Package upstream is the one mechanism behind every third-party HTTP call
// the worker makes — the geocoder (Nominatim), the route sources (Komoot,
// Strava, RideWithGPS) and the data providers (Overpass, Open-Meteo, OSRM).
// ARCHITECTURE §6.
//
// A [Client] per upstream combines:
//
//   - a rate limiter ([Pacer]): [KVPacer] shares one "next allowed send time"
//     key in a NATS JetStream KV bucket between every replica, updated by
//     compare-and-swap, so a per-application limit holds (Nominatim: 1 req/s;
//     pace at ≥ 1.1 s); [LocalPacer] is the in-process fallback;
//   - a circuit breaker (sony/gobreaker/v2): opens after N consecutive
//     failures (5xx, timeouts, connection errors) and at once on 429 or any
//     Retry-After, is held open at least as long as Retry-After, then lets one
//     half-open probe through; the caller's context ending is neither a
//     success nor a failure; 404/403/other 4xx are answers, not outages;
//   - singleflight: identical concurrent requests share one exchange (it
//     keeps running while at least one caller still waits);
//   - a cache of 2xx bodies ([Cache]): [KVCache] is a NATS KV bucket with a
//     TTL shared by every replica (24 h for geocoding and routes),
//     [LRUCache] the in-process fallback;
//   - a required identifying User-Agent, a configurable base URL (callers
//     give only a path and a query, never a host), bounded bodies,
//     same-host-only redirects (≤ 2 by default), optional retries of
//     transient failures;
//   - Prometheus metrics on a registry the caller passes ([NewMetrics]).
//
// Every error from [Client.Do] is an [*Error] whose Kind is a sentinel —
// ErrRateLimited, ErrUnavailable (ErrCircuitOpen is one), ErrNotFound,
// ErrForbidden, ErrRejected, ErrBodyTooLarge, ErrRefused — except that the
// caller's own context ending is returned as ctx.Err(). [RetryAfter] extracts
// the wait hint. Typical use:
//
//	m, _ := upstream.NewMetrics(reg)
//	pacer, _ := upstream.NewKVPacer(ctx, js, "", "nominatim", 1100*time.Millisecond)
//	cache, _ := upstream.NewKVCache(ctx, js, "roadbook_geocode_cache", 24*time.Hour, 0)
//	c, err := upstream.New("nominatim",
//		upstream.WithBaseURL("https://nominatim.openstreetmap.org"),
//		upstream.WithUserAgent("Roadbook/1.0 (ops@example.org)"),
//		upstream.WithPacer(pacer), upstream.WithCache(cache), upstream.WithMetrics(m))
//	resp, err := c.Do(ctx, upstream.Request{Path: "/search", Query: url.Values{"q": {"Hamburg"}, "format": {"jsonv2"}}})
//	switch {
//	case errors.Is(err, upstream.ErrRateLimited): // rate_limited, upstream.RetryAfter(err)
//	case errors.Is(err, upstream.ErrUnavailable): // unavailable (includes ErrCircuitOpen)
//	}
package upstream
