package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"time"
)

// JWKS is a key set fetched from an OIDC issuer's JWKS URL. Keys are cached;
// an unknown kid triggers a refresh (the issuer rotated its keys), at most
// once per MinRefresh so a flood of forged kids cannot hammer the issuer.
type JWKS struct {
	url        string
	client     *http.Client
	ttl        time.Duration
	minRefresh time.Duration
	now        func() time.Time

	mu        sync.Mutex
	keys      map[string]Key
	fetchedAt time.Time
}

// JWKSOptions tune a JWKS key set; zero values take the defaults.
type JWKSOptions struct {
	// Client fetches the document (default: 10 s timeout).
	Client *http.Client
	// TTL is how long a fetched set is trusted (default 10 min).
	TTL time.Duration
	// MinRefresh bounds refreshes on unknown kids (default 10 s).
	MinRefresh time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// maxJWKSBytes bounds the document read from the issuer.
const maxJWKSBytes = 1 << 20

// NewJWKS returns a key set fetched lazily from url.
func NewJWKS(url string, opts JWKSOptions) *JWKS {
	j := &JWKS{url: url, client: opts.Client, ttl: opts.TTL, minRefresh: opts.MinRefresh, now: opts.Now}
	if j.client == nil {
		j.client = &http.Client{Timeout: 10 * time.Second}
	}
	if j.ttl <= 0 {
		j.ttl = 10 * time.Minute
	}
	if j.minRefresh <= 0 {
		j.minRefresh = 10 * time.Second
	}
	if j.now == nil {
		j.now = time.Now
	}
	return j
}

// Key implements KeySet.
func (j *JWKS) Key(ctx context.Context, kid string) (Key, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := j.now()
	stale := j.keys == nil || now.Sub(j.fetchedAt) > j.ttl
	if k, ok := j.keys[kid]; ok && !stale {
		return k, nil
	}
	if stale || now.Sub(j.fetchedAt) >= j.minRefresh {
		keys, err := j.fetch(ctx)
		if err != nil {
			if k, ok := j.keys[kid]; ok {
				return k, nil // the issuer is down: keep trusting what it said
			}
			return Key{}, err
		}
		j.keys, j.fetchedAt = keys, now
	}
	k, ok := j.keys[kid]
	if !ok {
		return Key{}, fmt.Errorf("unknown key id %q", kid)
	}
	return k, nil
}

// jwk is one key of a JWKS document (RFC 7517/7518).
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func (j *JWKS) fetch(ctx context.Context) (map[string]Key, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.url, nil)
	if err != nil {
		return nil, fmt.Errorf("auth: jwks request: %w", err)
	}
	resp, err := j.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: jwks fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("auth: jwks fetch: HTTP %d", resp.StatusCode)
	}
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("auth: jwks decode: %w", err)
	}
	keys := map[string]Key{}
	for _, k := range doc.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		key, err := k.key()
		if err != nil {
			continue // one key we cannot use must not hide the others
		}
		keys[key.ID] = key
	}
	return keys, nil
}

func (k jwk) key() (Key, error) {
	b64 := func(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
	switch k.Kty {
	case "RSA":
		n, err := b64(k.N)
		if err != nil {
			return Key{}, err
		}
		e, err := b64(k.E)
		if err != nil || len(e) == 0 || len(e) > 4 {
			return Key{}, fmt.Errorf("bad exponent")
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		return Key{ID: k.Kid, Algorithm: "RS256", Public: pub}, nil
	case "EC":
		if k.Crv != "P-256" {
			return Key{}, fmt.Errorf("unsupported curve %q", k.Crv)
		}
		x, err := b64(k.X)
		if err != nil {
			return Key{}, err
		}
		y, err := b64(k.Y)
		if err != nil {
			return Key{}, err
		}
		pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
		return Key{ID: k.Kid, Algorithm: "ES256", Public: pub}, nil
	}
	return Key{}, fmt.Errorf("unsupported key type %q", k.Kty)
}
