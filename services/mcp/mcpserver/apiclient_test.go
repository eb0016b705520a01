package mcpserver

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/services/mcp/internal/tools"
)

// countingIssuer is a real HS256 issuer that counts the credentials it
// signs.
type countingIssuer struct {
	*auth.HS256Issuer
	mints atomic.Int64
}

func (c *countingIssuer) Mint(claims auth.Claims) (string, error) {
	c.mints.Add(1)
	return c.HS256Issuer.Mint(claims)
}

func TestCredentialReuse(t *testing.T) {
	t.Parallel()
	newCredential := func(t *testing.T) (*credential, *countingIssuer, *auth.Verifier, *time.Time) {
		iss, err := auth.NewHS256Issuer("mcp", []byte(strings.Repeat("s", 32)), "roadbook-mcp")
		require.NoError(t, err)
		v, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(), Services: auth.NewStaticKeys(iss.Key()), TrustedActors: []string{"roadbook-mcp"}, ServiceIssuer: "roadbook-mcp"})
		require.NoError(t, err)
		ci := &countingIssuer{HS256Issuer: iss}
		now := time.Now()
		return &credential{issuer: ci, actor: "roadbook-mcp", audience: auth.DefaultAudience, now: func() time.Time { return now }}, ci, v, &now
	}
	as := func(user string, scopes ...string) context.Context {
		return tools.WithCaller(context.Background(), tools.Caller{UserID: user, Scopes: scopes})
	}

	t.Run("calls for one user and scopes share one credential, which acts for that user", func(t *testing.T) {
		t.Parallel()
		c, ci, v, _ := newCredential(t)
		first, err := c.token(as("ann", tools.ScopeRead))
		require.NoError(t, err)
		for range 10 {
			tok, err := c.token(as("ann", tools.ScopeRead))
			require.NoError(t, err)
			require.Equal(t, first, tok)
		}
		require.EqualValues(t, 1, ci.mints.Load())
		p, err := v.Verify(context.Background(), first)
		require.NoError(t, err)
		require.Equal(t, "ann", p.UserID)
		require.Equal(t, "roadbook-mcp", p.Actor)
		require.Equal(t, []auth.Scope{auth.ScopeRead}, p.Scopes)
	})
	t.Run("another user or other scopes never borrow a credential", func(t *testing.T) {
		t.Parallel()
		c, ci, v, _ := newCredential(t)
		read, err := c.token(as("ann", tools.ScopeRead))
		require.NoError(t, err)
		write, err := c.token(as("ann", tools.ScopeRead, tools.ScopeWrite))
		require.NoError(t, err)
		bob, err := c.token(as("bob", tools.ScopeRead))
		require.NoError(t, err)
		require.NotEqual(t, read, write)
		require.NotEqual(t, read, bob)
		require.EqualValues(t, 3, ci.mints.Load())
		p, err := v.Verify(context.Background(), write)
		require.NoError(t, err)
		require.ElementsMatch(t, []auth.Scope{auth.ScopeRead, auth.ScopeWrite}, p.Scopes)
		p, err = v.Verify(context.Background(), bob)
		require.NoError(t, err)
		require.Equal(t, "bob", p.UserID)
	})
	t.Run("a credential is replaced before it is old enough to expire in flight", func(t *testing.T) {
		t.Parallel()
		c, ci, _, now := newCredential(t)
		first, err := c.token(as("ann", tools.ScopeRead))
		require.NoError(t, err)
		*now = now.Add(credentialReuse - time.Second)
		same, err := c.token(as("ann", tools.ScopeRead))
		require.NoError(t, err)
		require.Equal(t, first, same)
		*now = now.Add(time.Second)
		fresh, err := c.token(as("ann", tools.ScopeRead))
		require.NoError(t, err)
		require.NotEqual(t, first, fresh)
		require.EqualValues(t, 2, ci.mints.Load())
		require.Greater(t, credentialTTL-credentialReuse, 30*time.Second, "a reused credential outlives the API client's timeout")
	})
	t.Run("a call without a caller is refused", func(t *testing.T) {
		t.Parallel()
		c, ci, _, _ := newCredential(t)
		_, err := c.token(context.Background())
		require.Error(t, err)
		require.Zero(t, ci.mints.Load())
	})
	t.Run("a busy user keeps its credential while the cache fills with many users", func(t *testing.T) {
		t.Parallel()
		c, ci, _, _ := newCredential(t)
		hot, err := c.token(as("busy", tools.ScopeRead))
		require.NoError(t, err)
		for i := range credentialCacheSize + 10 {
			_, err := c.token(as("user-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Duration(i).String(), tools.ScopeRead))
			require.NoError(t, err)
			again, err := c.token(as("busy", tools.ScopeRead))
			require.NoError(t, err)
			require.Equal(t, hot, again, "the busy user's credential after %d others", i+1)
		}
		require.EqualValues(t, credentialCacheSize+11, ci.mints.Load(), "one mint per user, none again for the busy one")
		require.Equal(t, credentialCacheSize, c.cache().Len(), "the cache stays bounded")
	})
}
