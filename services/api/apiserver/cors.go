package apiserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	connectcors "connectrpc.com/cors"
	rscors "github.com/rs/cors"
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

// newCORS checks cfg (every origin scheme://host[:port], no wildcard with
// credentials) and returns the policy as middleware: github.com/rs/cors
// with connectrpc.com/cors's method and header lists plus Roadbook's own.
// The zero config allows no other origin and wraps nothing.
func newCORS(cfg CORSConfig) (func(http.Handler) http.Handler, error) {
	anyOrigin := false
	var origins []string
	for _, o := range cfg.AllowedOrigins {
		if o == "*" {
			anyOrigin = true
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("apiserver: Config.CORS.AllowedOrigins: %q is not an origin (scheme://host[:port], no path)", o)
		}
		origins = append(origins, strings.ToLower(o))
	}
	if anyOrigin && cfg.AllowCredentials {
		return nil, fmt.Errorf("apiserver: Config.CORS: AllowCredentials cannot be combined with the wildcard origin \"*\"")
	}
	if !anyOrigin && len(origins) == 0 {
		return func(next http.Handler) http.Handler { return next }, nil
	}
	if anyOrigin {
		origins = []string{"*"}
	}
	maxAge := cfg.MaxAge
	if maxAge <= 0 {
		maxAge = 2 * time.Hour
	}
	policy := rscors.New(rscors.Options{
		AllowedOrigins:   origins,
		AllowedMethods:   connectcors.AllowedMethods(),
		AllowedHeaders:   append(connectcors.AllowedHeaders(), corsExtraAllowed...),
		ExposedHeaders:   append(connectcors.ExposedHeaders(), corsExtraExposed...),
		AllowCredentials: cfg.AllowCredentials,
		MaxAge:           int(maxAge.Seconds()),
	})
	return policy.Handler, nil
}
