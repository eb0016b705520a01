package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
)

// jwksServer serves a JWKS document whose keys the test can rotate, and
// can fail (HTTP 503) or hang like an identity provider in an outage.
type jwksServer struct {
	mu      sync.Mutex
	keys    []map[string]string
	fetches atomic.Int32
	failing atomic.Bool
	hang    chan struct{} // non-nil: requests block until it closes
}

func (s *jwksServer) set(keys ...map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = keys
}

func (s *jwksServer) hangUntil(release chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hang = release
}

func (s *jwksServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.fetches.Add(1)
	s.mu.Lock()
	hang, keys := s.hang, s.keys
	s.mu.Unlock()
	if hang != nil {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
		return
	}
	if s.failing.Load() {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"keys": keys})
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func rsaJWK(kid string, k *rsa.PrivateKey) map[string]string {
	return map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
}

func ecJWK(kid string, k *ecdsa.PrivateKey) map[string]string {
	pad := func(b []byte) []byte { return append(make([]byte, 32-len(b)), b...) }
	return map[string]string{"kty": "EC", "kid": kid, "crv": "P-256", "use": "sig",
		"x": b64(pad(k.X.Bytes())), "y": b64(pad(k.Y.Bytes()))}
}

func sign(t *testing.T, m jwt.SigningMethod, kid string, key any, sub ...string) string {
	t.Helper()
	subject := "ann"
	if len(sub) > 0 {
		subject = sub[0]
	}
	tok := jwt.NewWithClaims(m, jwt.MapClaims{"iss": "https://idp.example", "sub": subject, "aud": "roadbook-api",
		"exp": t0.Add(time.Hour).Unix(), "iat": t0.Unix(), "scope": "trips:read"})
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	require.NoError(t, err)
	return s
}

// jwksFixture is an issuer with an RSA and an EC key and a verifier on its
// JWKS; the verifier's clock is t0 (the tokens' times), the key set's is
// real (its refresh and rate limits).
type jwksFixture struct {
	srv          *jwksServer
	v            *auth.Verifier
	rsaKey       *rsa.PrivateKey
	ecKey, other *ecdsa.PrivateKey
}

func newJWKSFixture(t *testing.T, opts auth.JWKSOptions) *jwksFixture {
	t.Helper()
	f := &jwksFixture{srv: &jwksServer{}}
	var err error
	f.rsaKey, err = rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	f.ecKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	f.other, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	f.srv.set(rsaJWK("r1", f.rsaKey), ecJWK("e1", f.ecKey))
	hs := httptest.NewServer(f.srv)
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts.Ctx = ctx
	if opts.OnRefreshError == nil {
		opts.OnRefreshError = func(context.Context, error) {}
	}
	jwks, err := auth.NewJWKS(hs.URL, opts)
	require.NoError(t, err)
	f.v, err = auth.NewVerifier(auth.Config{Users: jwks, UserIssuer: "https://idp.example", Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	return f
}

func TestJWKS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("RS256 and ES256 tokens verify against one fetch of the set", func(t *testing.T) {
		t.Parallel()
		f := newJWKSFixture(t, auth.JWKSOptions{})
		p, err := f.v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "r1", f.rsaKey))
		require.NoError(t, err, "RS256")
		require.Equal(t, "ann", p.UserID)
		_, err = f.v.Verify(ctx, sign(t, jwt.SigningMethodES256, "e1", f.ecKey))
		require.NoError(t, err, "ES256")
		require.EqualValues(t, 1, f.srv.fetches.Load(), "keys are cached")
	})

	t.Run("a rotated key is fetched once; unknown kids after it wait for the refresh rate", func(t *testing.T) {
		t.Parallel()
		f := newJWKSFixture(t, auth.JWKSOptions{MinRefresh: 300 * time.Millisecond})
		f.srv.set(ecJWK("e2", f.other))
		_, err := f.v.Verify(ctx, sign(t, jwt.SigningMethodES256, "e2", f.other))
		require.NoError(t, err, "the rotated key")
		require.EqualValues(t, 2, f.srv.fetches.Load())
		start := time.Now()
		for i := range 20 {
			_, err = f.v.Verify(ctx, sign(t, jwt.SigningMethodES256, "forged", f.other, "mallory-"+string(rune('a'+i))))
			require.ErrorIs(t, err, auth.ErrInvalidToken)
		}
		require.Less(t, time.Since(start), 2*time.Second, "refused at once, not queued behind the limiter (20 × 300 ms)")
		require.EqualValues(t, 2, f.srv.fetches.Load(), "twenty forged kids inside MinRefresh fetch nothing")
		require.Eventually(t, func() bool {
			_, err := f.v.Verify(ctx, sign(t, jwt.SigningMethodES256, "forged", f.other, "mallory-late"))
			return err != nil && f.srv.fetches.Load() == 3
		}, 2*time.Second, 50*time.Millisecond, "after MinRefresh an unknown kid may fetch again, once")
	})

	t.Run("while the issuer hangs, known keys verify without waiting", func(t *testing.T) {
		t.Parallel()
		f := newJWKSFixture(t, auth.JWKSOptions{})
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		f.srv.hangUntil(release)
		hung := make(chan struct{})
		go func() {
			defer close(hung)
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, _ = f.v.Verify(cctx, sign(t, jwt.SigningMethodES256, "new-kid", f.other))
		}()
		require.Eventually(t, func() bool { return f.srv.fetches.Load() == 2 }, 2*time.Second, 5*time.Millisecond,
			"an unknown kid is fetching from the hung issuer")
		start := time.Now()
		p, err := f.v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "r1", f.rsaKey, "bob"))
		require.NoError(t, err)
		require.Equal(t, "bob", p.UserID)
		require.Less(t, time.Since(start), 2*time.Second, "a known key does not wait for the fetch (5 s)")
		select {
		case <-hung:
			t.Fatal("the unknown kid's fetch should still be hanging")
		default:
		}
	})

	t.Run("while the issuer fails, the background refresh keeps the keys it had", func(t *testing.T) {
		t.Parallel()
		f := newJWKSFixture(t, auth.JWKSOptions{Refresh: 20 * time.Millisecond})
		f.srv.failing.Store(true)
		require.Eventually(t, func() bool { return f.srv.fetches.Load() >= 4 }, 2*time.Second, 10*time.Millisecond, "refreshed in the background")
		_, err := f.v.Verify(ctx, sign(t, jwt.SigningMethodES256, "e1", f.ecKey, "carol"))
		require.NoError(t, err)
		f.srv.failing.Store(false)
		f.srv.set(rsaJWK("r1", f.rsaKey))
		require.Eventually(t, func() bool {
			_, err := f.v.Verify(ctx, sign(t, jwt.SigningMethodES256, "e1", f.ecKey, "dave-"+time.Now().String()))
			return err != nil
		}, 2*time.Second, 10*time.Millisecond, "a key the issuer withdrew stops verifying after a refresh")
	})

	t.Run("an HS256 token naming an RSA kid is refused (no algorithm confusion)", func(t *testing.T) {
		t.Parallel()
		f := newJWKSFixture(t, auth.JWKSOptions{})
		confused := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://idp.example", "sub": "ann", "aud": "roadbook-api", "exp": t0.Add(time.Hour).Unix()})
		confused.Header["kid"] = "r1"
		s, err := confused.SignedString(f.rsaKey.N.Bytes())
		require.NoError(t, err)
		_, err = f.v.Verify(ctx, s)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})

	t.Run("a symmetric key published in the set never makes an HS256 token valid", func(t *testing.T) {
		t.Parallel()
		f := newJWKSFixture(t, auth.JWKSOptions{})
		secret := []byte("published-secret-published-secret!")
		f.srv.set(map[string]string{"kty": "oct", "kid": "h1", "k": b64(secret)})
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://idp.example", "sub": "ann", "aud": "roadbook-api", "exp": t0.Add(time.Hour).Unix()})
		tok.Header["kid"] = "h1"
		s, err := tok.SignedString(secret)
		require.NoError(t, err)
		_, err = f.v.Verify(ctx, s)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})
}
