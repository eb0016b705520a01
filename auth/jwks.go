package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"golang.org/x/time/rate"
)

// JWKS is the key set of an OIDC issuer, fetched from its JWKS URL by
// MicahParks/keyfunc: once when made, then in the background every
// Refresh, and again when a token names a kid the set does not hold (the
// issuer rotated its keys), at most once per MinRefresh. Token checks read
// the keys in memory and never wait on the issuer: while it is down, the
// keys it last published keep verifying, and an unknown kid beyond the
// refresh rate is refused at once rather than queued behind a fetch.
type JWKS struct {
	keys keyfunc.Keyfunc
	// unknown admits the refetches unknown kids cause, without waiting: a
	// kid beyond the rate is refused at once.
	unknown *rate.Limiter
}

// JWKSOptions tune a JWKS key set; zero values take the defaults.
type JWKSOptions struct {
	// Ctx bounds the background refresh: it stops when Ctx ends (default:
	// never, for a process-long key set).
	Ctx context.Context
	// Client fetches the document (default: 10 s timeout).
	Client *http.Client
	// Refresh is the background refresh period (default 10 min): how long
	// a key the issuer withdrew keeps verifying.
	Refresh time.Duration
	// MinRefresh bounds the refetches unknown kids cause (default 10 s), so
	// a flood of forged kids cannot hammer the issuer.
	MinRefresh time.Duration
	// OnRefreshError hears a failed fetch (default: slog's default logger).
	OnRefreshError func(ctx context.Context, err error)
}

// maxJWKSBytes bounds the document read from the issuer.
const maxJWKSBytes = 1 << 20

// NewJWKS fetches the key set at url and keeps it fresh. A first fetch that
// fails is not an error (the refreshes and unknown kids try again); a URL
// that is not one is.
func NewJWKS(url string, opts JWKSOptions) (*JWKS, error) {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	limited := *client
	limited.Transport = limitBody{next: client.Transport}
	refresh := opts.Refresh
	if refresh <= 0 {
		refresh = 10 * time.Minute
	}
	minRefresh := opts.MinRefresh
	if minRefresh <= 0 {
		minRefresh = 10 * time.Second
	}
	override := keyfunc.Override{
		Client:          &limited,
		HTTPTimeout:     10 * time.Second,
		RefreshInterval: refresh,
		// keyfunc's own unknown-kid limiter makes callers wait for a slot
		// (and its wait bound also bounds the fetch); JWKS.unknown admits
		// or refuses before, so keyfunc's never holds anyone back.
		RefreshUnknownKID: rate.NewLimiter(rate.Inf, 1),
		RateLimitWaitMax:  10 * time.Second,
	}
	if opts.OnRefreshError != nil {
		override.RefreshErrorHandlerFunc = func(string) func(context.Context, error) { return opts.OnRefreshError }
	}
	kf, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{url}, override)
	if err != nil {
		return nil, fmt.Errorf("auth: jwks %q: %w", url, err)
	}
	return &JWKS{keys: kf, unknown: rate.NewLimiter(rate.Every(minRefresh), 1)}, nil
}

// Key implements KeySet: the RS256 or ES256 (P-256) key named kid. A key
// meant for encryption, of another type or curve, or whose alg is not the
// one its type gives is refused, as is every symmetric key: an issuer's
// JWKS never makes an HS256 token valid.
func (j *JWKS) Key(ctx context.Context, kid string) (Key, error) {
	jwk, err := j.read(ctx, kid)
	if err != nil {
		if errors.Is(err, jwkset.ErrKeyNotFound) {
			return Key{}, fmt.Errorf("unknown key id %q", kid)
		}
		return Key{}, fmt.Errorf("key id %q: %w", kid, err)
	}
	m := jwk.Marshal()
	if m.USE != "" && m.USE != jwkset.UseSig {
		return Key{}, fmt.Errorf("key %q is for %q, not signatures", kid, m.USE)
	}
	pub := jwk.Key()
	if p, ok := pub.(interface{ Public() crypto.PublicKey }); ok {
		pub = p.Public()
	}
	var alg string
	switch k := pub.(type) {
	case *rsa.PublicKey:
		alg = "RS256"
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return Key{}, fmt.Errorf("key %q: unsupported curve %s", kid, k.Curve.Params().Name)
		}
		alg = "ES256"
	default:
		return Key{}, fmt.Errorf("key %q: unsupported key type %q", kid, m.KTY)
	}
	if m.ALG != "" && string(m.ALG) != alg {
		return Key{}, fmt.Errorf("key %q is for %s, not %s", kid, m.ALG, alg)
	}
	return Key{ID: kid, Algorithm: alg, Public: pub}, nil
}

// read finds kid among the keys in memory; a kid not there is looked up
// by a refetch when the refresh rate admits one, else refused at once.
func (j *JWKS) read(ctx context.Context, kid string) (jwkset.JWK, error) {
	store := j.keys.Storage()
	held, err := store.KeyReadAll(ctx) // memory only: no fetch
	if err != nil {
		return jwkset.JWK{}, err
	}
	for _, k := range held {
		if k.Marshal().KID == kid {
			return k, nil
		}
	}
	if !j.unknown.Allow() {
		return jwkset.JWK{}, fmt.Errorf("%w %q (no refetch before the refresh rate allows)", jwkset.ErrKeyNotFound, kid)
	}
	return store.KeyRead(ctx, kid)
}

// limitBody cuts the issuer's response at maxJWKSBytes: a larger document
// fails to decode instead of filling memory.
type limitBody struct{ next http.RoundTripper }

// RoundTrip fetches through next (http.DefaultTransport when nil).
func (l limitBody) RoundTrip(r *http.Request) (*http.Response, error) {
	next := l.next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.LimitReader(resp.Body, maxJWKSBytes), resp.Body}
	return resp, nil
}
