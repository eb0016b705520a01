package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/roadbook/roadbook/auth"

	_ "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

var (
	t0         = time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)
	userSecret = []byte("user-secret-user-secret-user-secret!!")
	mcpSecret  = []byte("mcp-secret-mcp-secret-mcp-secret-mcp!!")
)

func issuers(t *testing.T) (user, svc *auth.HS256Issuer) {
	t.Helper()
	user, err := auth.NewHS256Issuer("dev-1", userSecret, "roadbook-dev")
	require.NoError(t, err)
	svc, err = auth.NewHS256Issuer("mcp-1", mcpSecret, "roadbook-mcp")
	require.NoError(t, err)
	return user, svc
}

func verifier(t *testing.T, user, svc *auth.HS256Issuer) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(auth.Config{
		Users:         auth.NewStaticKeys(user.Key()),
		UserIssuer:    "roadbook-dev",
		Services:      auth.NewStaticKeys(svc.Key()),
		TrustedActors: []string{"roadbook-mcp"},
		ServiceIssuer: "roadbook-mcp",
		Now:           func() time.Time { return t0 },
	})
	require.NoError(t, err)
	return v
}

func claims(sub string, scopes ...auth.Scope) auth.Claims {
	return auth.Claims{Subject: sub, Audience: []string{auth.DefaultAudience}, IssuedAt: t0, ExpiresAt: t0.Add(time.Hour), Scopes: scopes}
}

// serviceClaims are a service credential's claims as the MCP service mints
// them: acting for sub, two minutes long.
func serviceClaims(sub string, scopes ...auth.Scope) auth.Claims {
	c := claims(sub, scopes...)
	c.Actor, c.ExpiresAt = "roadbook-mcp", t0.Add(2*time.Minute)
	return c
}

func TestVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	user, svc := issuers(t)
	v := verifier(t, user, svc)

	t.Run("a dev token grants its subject and scopes", func(t *testing.T) {
		t.Parallel()
		tok, err := user.Mint(claims("ann", auth.ScopeRead, auth.ScopeWrite))
		require.NoError(t, err)
		p, err := v.Verify(ctx, tok)
		require.NoError(t, err)
		require.Equal(t, "ann", p.UserID)
		require.True(t, p.Has(auth.ScopeWrite))
		require.Empty(t, p.Actor)
	})
	t.Run("an expired token is refused", func(t *testing.T) {
		t.Parallel()
		c := claims("ann", auth.ScopeRead)
		c.IssuedAt, c.ExpiresAt = t0.Add(-2*time.Hour), t0.Add(-time.Hour)
		tok, err := user.Mint(c)
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
		require.Contains(t, err.Error(), "expired")
	})
	t.Run("a token for another audience is refused", func(t *testing.T) {
		t.Parallel()
		c := claims("ann", auth.ScopeRead)
		c.Audience = []string{"roadbook-mcp-resource"}
		tok, err := user.Mint(c)
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
		require.Contains(t, err.Error(), "audience")
	})
	t.Run("a token from another issuer is refused", func(t *testing.T) {
		t.Parallel()
		c := claims("ann", auth.ScopeRead)
		c.Issuer = "evil"
		tok, err := user.Mint(c)
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})
	t.Run("a token signed with an unknown secret is refused", func(t *testing.T) {
		t.Parallel()
		other, err := auth.NewHS256Issuer("dev-1", []byte(strings.Repeat("x", 40)), "roadbook-dev")
		require.NoError(t, err)
		tok, err := other.Mint(claims("ann", auth.ScopeRead))
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})
	t.Run("an unsigned token is refused", func(t *testing.T) {
		t.Parallel()
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": "ann", "aud": "roadbook-api", "exp": t0.Add(time.Hour).Unix()})
		tok.Header["kid"] = "dev-1"
		s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		require.NoError(t, err)
		_, err = v.Verify(ctx, s)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})
	t.Run("the MCP service credential acts for the user it names", func(t *testing.T) {
		t.Parallel()
		tok, err := svc.Mint(serviceClaims("ann", auth.ScopeRead))
		require.NoError(t, err)
		p, err := v.Verify(ctx, tok)
		require.NoError(t, err)
		require.Equal(t, "ann", p.UserID)
		require.Equal(t, "roadbook-mcp", p.Actor)
	})
	t.Run("a service credential from another issuer is refused", func(t *testing.T) {
		t.Parallel()
		c := serviceClaims("ann", auth.ScopeRead)
		c.Issuer = "roadbook-dev"
		tok, err := svc.Mint(c)
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})
	t.Run("a service credential longer-lived than the maximum is refused", func(t *testing.T) {
		t.Parallel()
		c := serviceClaims("ann", auth.ScopeRead)
		c.ExpiresAt = t0.Add(auth.DefaultServiceMaxLifetime + time.Second)
		tok, err := svc.Mint(c)
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
		require.ErrorContains(t, err, "may live 5m0s at most")
	})
	t.Run("a service credential without an issue time is refused", func(t *testing.T) {
		t.Parallel()
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "roadbook-mcp", "sub": "ann", "aud": auth.DefaultAudience,
			"exp": t0.Add(time.Minute).Unix(), "scope": "trips:read", "act": map[string]any{"sub": "roadbook-mcp"}})
		tok.Header["kid"] = "mcp-1"
		s, err := tok.SignedString(mcpSecret)
		require.NoError(t, err)
		_, err = v.Verify(ctx, s)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})
	t.Run("a service key set without its issuer is a configuration error", func(t *testing.T) {
		t.Parallel()
		_, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(user.Key()), Services: auth.NewStaticKeys(svc.Key()),
			TrustedActors: []string{"roadbook-mcp"}})
		require.ErrorContains(t, err, "ServiceIssuer")
	})
	t.Run("a user key cannot mint a service credential", func(t *testing.T) {
		t.Parallel()
		c := claims("bob", auth.ScopeRead)
		c.Actor = "roadbook-mcp"
		tok, err := user.Mint(c)
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})
	t.Run("a service key cannot sign a plain user token", func(t *testing.T) {
		t.Parallel()
		tok, err := svc.Mint(claims("bob", auth.ScopeRead))
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	})
	t.Run("an untrusted actor is refused", func(t *testing.T) {
		t.Parallel()
		c := serviceClaims("ann", auth.ScopeRead)
		c.Actor = "someone-else"
		tok, err := svc.Mint(c)
		require.NoError(t, err)
		_, err = v.Verify(ctx, tok)
		require.ErrorIs(t, err, auth.ErrUntrustedActor)
	})
	t.Run("a missing scope is refused by Authorize", func(t *testing.T) {
		t.Parallel()
		tok, err := user.Mint(claims("ann", auth.ScopeRead))
		require.NoError(t, err)
		_, err = v.Authorize(ctx, "Bearer "+tok, auth.ScopeWrite)
		require.ErrorIs(t, err, auth.ErrInsufficientScope)
		_, err = v.Authorize(ctx, "", auth.ScopeRead)
		require.ErrorIs(t, err, auth.ErrNoToken)
	})
}

func TestMiddleware(t *testing.T) {
	t.Parallel()
	user, svc := issuers(t)
	v := verifier(t, user, svc)
	h := v.Middleware(auth.ScopeRead, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := auth.FromContext(r.Context())
		require.True(t, ok)
		_, _ = w.Write([]byte(p.UserID))
	}))
	do := func(authz string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/x", nil)
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		h.ServeHTTP(rec, req)
		return rec
	}
	t.Run("answers 401 with a challenge without a token", func(t *testing.T) {
		t.Parallel()
		rec := do("")
		require.Equal(t, http.StatusUnauthorized, rec.Code)
		require.Equal(t, "Bearer", rec.Header().Get("WWW-Authenticate"))
	})
	t.Run("answers every bad token with the same text, whatever the reason", func(t *testing.T) {
		t.Parallel()
		expired := claims("ann", auth.ScopeRead)
		expired.ExpiresAt = t0.Add(-time.Hour)
		old, err := user.Mint(expired)
		require.NoError(t, err)
		elsewhere := claims("ann", auth.ScopeRead)
		elsewhere.Audience = []string{"another-api"}
		foreign, err := user.Mint(elsewhere)
		require.NoError(t, err)
		for _, authz := range []string{"", "Bearer " + old, "Bearer " + foreign, "Bearer not.a.jwt"} {
			rec := do(authz)
			require.Equal(t, http.StatusUnauthorized, rec.Code)
			require.Equal(t, auth.UnauthenticatedMessage+"\n", rec.Body.String(), "the reason for %q is only in the log", authz)
		}
	})
	t.Run("answers 403 without the scope", func(t *testing.T) {
		t.Parallel()
		tok, err := user.Mint(claims("ann", auth.ScopeWrite))
		require.NoError(t, err)
		rec := do("Bearer " + tok)
		require.Equal(t, http.StatusForbidden, rec.Code)
		require.Contains(t, rec.Header().Get("WWW-Authenticate"), "insufficient_scope")
	})
	t.Run("passes the principal on", func(t *testing.T) {
		t.Parallel()
		tok, err := user.Mint(claims("ann", auth.ScopeRead))
		require.NoError(t, err)
		rec := do("Bearer " + tok)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, "ann", rec.Body.String())
	})
}

func TestDefaultPolicy(t *testing.T) {
	t.Parallel()
	policy := auth.DefaultPolicy()
	seen := 0
	protoregistry.GlobalFiles.RangeFilesByPackage("roadbook.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := range fd.Services().Len() {
			sd := fd.Services().Get(i)
			for j := range sd.Methods().Len() {
				m := sd.Methods().Get(j)
				proc := "/" + string(sd.FullName()) + "/" + string(m.Name())
				scope, ok := policy[proc]
				require.True(t, ok, "procedure %s has no scope entry", proc)
				if sd.Name() == "PublicShareService" {
					require.Equal(t, auth.Public, scope, proc)
				} else {
					require.Contains(t, []auth.Scope{auth.ScopeRead, auth.ScopeWrite}, scope, proc)
				}
				seen++
			}
		}
		return true
	})
	require.Equal(t, len(policy), seen, "every policy entry is a real procedure")
	require.Greater(t, seen, 25)
}
