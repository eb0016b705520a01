package apiserver

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	connectcors "connectrpc.com/cors"
)

// CORSConfig lets browser frontends served from other origins call the
// Connect API (Connect-Web and gRPC-Web). The zero value allows no other
// origin: same-origin pages (the share page) need no CORS at all.
type CORSConfig struct {
	// AllowedOrigins are exact origins ("https://app.example",
	// "http://localhost:5173"), or the single entry "*" for any origin.
	AllowedOrigins []string
	// AllowCredentials sends Access-Control-Allow-Credentials, for frontends
	// that rely on cookies or HTTP auth. Browsers refuse credentials with a
	// wildcard origin, so New refuses the pair. Bearer tokens in the
	// Authorization header do not need it.
	AllowCredentials bool
	// MaxAge is how long a browser may cache a preflight (default 2 h,
	// Chromium's cap).
	MaxAge time.Duration
}

// Header lists beyond connectrpc.com/cors's protocol headers: Roadbook's
// own request headers and the response headers a frontend reads.
var (
	corsExtraAllowed = []string{"Authorization", "Idempotency-Key", "Traceparent", "Tracestate"}
	corsExtraExposed = []string{"Www-Authenticate", "Retry-After", "Content-Disposition"}
)

// cors is the compiled policy.
type cors struct {
	any         bool
	origins     map[string]bool
	credentials bool
	methods     string
	headers     string
	exposed     string
	maxAge      string
}

// newCORS checks cfg: every origin must be scheme://host[:port] and a
// wildcard cannot be combined with credentials.
func newCORS(cfg CORSConfig) (*cors, error) {
	c := &cors{
		origins:     map[string]bool{},
		credentials: cfg.AllowCredentials,
		methods:     strings.Join(connectcors.AllowedMethods(), ", "),
		headers:     strings.Join(append(connectcors.AllowedHeaders(), corsExtraAllowed...), ", "),
		exposed:     strings.Join(append(connectcors.ExposedHeaders(), corsExtraExposed...), ", "),
		maxAge:      strconv.Itoa(int(cmpOr(cfg.MaxAge, 2*time.Hour).Seconds())),
	}
	for _, o := range cfg.AllowedOrigins {
		if o == "*" {
			c.any = true
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("apiserver: Config.CORS.AllowedOrigins: %q is not an origin (scheme://host[:port], no path)", o)
		}
		c.origins[strings.ToLower(o)] = true
	}
	if c.any && c.credentials {
		return nil, fmt.Errorf("apiserver: Config.CORS: AllowCredentials cannot be combined with the wildcard origin \"*\"")
	}
	return c, nil
}

func cmpOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// allowed is the Access-Control-Allow-Origin value for origin, or "".
func (c *cors) allowed(origin string) string {
	switch {
	case origin == "":
		return ""
	case c.origins[strings.ToLower(origin)]:
		return origin
	case c.any:
		return "*"
	}
	return ""
}

// wrap answers preflights itself and adds the CORS response headers to
// actual requests from allowed origins. A request from any other origin
// gets no CORS header, so the browser keeps its response from the page.
func (c *cors) wrap(next http.Handler) http.Handler {
	if !c.any && len(c.origins) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		origin := r.Header.Get("Origin")
		allow := c.allowed(origin)
		if len(c.origins) > 0 {
			h.Add("Vary", "Origin")
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			if allow != "" && slices.Contains(connectcors.AllowedMethods(), r.Header.Get("Access-Control-Request-Method")) {
				h.Set("Access-Control-Allow-Origin", allow)
				h.Set("Access-Control-Allow-Methods", c.methods)
				h.Set("Access-Control-Allow-Headers", c.headers)
				h.Set("Access-Control-Max-Age", c.maxAge)
				if c.credentials {
					h.Set("Access-Control-Allow-Credentials", "true")
				}
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if allow != "" {
			h.Set("Access-Control-Allow-Origin", allow)
			h.Set("Access-Control-Expose-Headers", c.exposed)
			if c.credentials {
				h.Set("Access-Control-Allow-Credentials", "true")
			}
		}
		next.ServeHTTP(w, r)
	})
}
