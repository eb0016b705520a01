package auth_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
)

// countingKeys is a key set that counts lookups (one per signature check)
// and can be emptied, as a JWKS is when a key is rotated out.
type countingKeys struct {
	keys    auth.StaticKeys
	lookups atomic.Int64
	mu      sync.Mutex
	gone    bool
}

func (c *countingKeys) Key(ctx context.Context, kid string) (auth.Key, error) {
	c.lookups.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return auth.Key{}, auth.ErrInvalidToken
	}
	return c.keys.Key(ctx, kid)
}

func (c *countingKeys) remove() { c.mu.Lock(); c.gone = true; c.mu.Unlock() }

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }
func newClock(t time.Time) *clock    { return &clock{now: t} }
func cachedVerifier(t *testing.T, keys auth.KeySet, c *clock) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(auth.Config{Users: keys, UserIssuer: "roadbook-dev", Now: c.Now})
	require.NoError(t, err)
	return v
}

func TestVerifiedTokenCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	user, _ := issuers(t)

	t.Run("a token that verified is not checked again within the minute", func(t *testing.T) {
		t.Parallel()
		keys := &countingKeys{keys: auth.NewStaticKeys(user.Key())}
		c := newClock(t0)
		v := cachedVerifier(t, keys, c)
		tok, err := user.Mint(claims("ann", auth.ScopeRead))
		require.NoError(t, err)
		for range 5 {
			p, err := v.Verify(ctx, tok)
			require.NoError(t, err)
			require.Equal(t, "ann", p.UserID)
			require.True(t, p.Has(auth.ScopeRead))
		}
		require.EqualValues(t, 1, keys.lookups.Load())

		c.Add(61 * time.Second)
		_, err = v.Verify(ctx, tok)
		require.NoError(t, err)
		require.EqualValues(t, 2, keys.lookups.Load(), "after a minute the signature is checked again")
	})
	t.Run("a cached token stops working at its expiry", func(t *testing.T) {
		t.Parallel()
		keys := &countingKeys{keys: auth.NewStaticKeys(user.Key())}
		c := newClock(t0)
		v := cachedVerifier(t, keys, c)
		cl := claims("ann", auth.ScopeRead)
		cl.ExpiresAt = t0.Add(20 * time.Second)
		tok, err := user.Mint(cl)
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.NoError(t, err)

		c.Add(10 * time.Second)
		_, err = v.Verify(ctx, tok)
		require.NoError(t, err)
		require.EqualValues(t, 1, keys.lookups.Load())

		c.Add(50 * time.Second) // past exp and the 30 s leeway
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
		require.Contains(t, err.Error(), "expired")
	})
	t.Run("a key rotated out stops its tokens within a minute", func(t *testing.T) {
		t.Parallel()
		keys := &countingKeys{keys: auth.NewStaticKeys(user.Key())}
		c := newClock(t0)
		v := cachedVerifier(t, keys, c)
		tok, err := user.Mint(claims("ann", auth.ScopeRead))
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.NoError(t, err)
		keys.remove()
		c.Add(61 * time.Second)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})
	t.Run("a refused token is checked again every time", func(t *testing.T) {
		t.Parallel()
		keys := &countingKeys{keys: auth.NewStaticKeys(user.Key())}
		c := newClock(t0)
		v := cachedVerifier(t, keys, c)
		tok, err := user.Mint(claims("ann", auth.ScopeRead))
		require.NoError(t, err)
		forged := tok[:len(tok)-4] + "AAAA"
		for range 3 {
			_, err := v.Verify(ctx, forged)
			require.ErrorIs(t, err, auth.ErrInvalidToken)
		}
		require.EqualValues(t, 3, keys.lookups.Load())
		p, err := v.Verify(ctx, tok)
		require.NoError(t, err, "the genuine token still verifies")
		require.Equal(t, "ann", p.UserID)
	})
}
