package auth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
)

func TestDevSignIn(t *testing.T) {
	t.Parallel()
	const base = "http://127.0.0.1:8080"
	minted := 0
	d := &auth.DevSignIn{
		Issuer: base + auth.DevIssuerPath, ClientID: auth.DevClientID, RedirectPrefix: base + "/app/",
		AccessToken: func() (string, time.Duration, error) { minted++; return "access-token", time.Hour, nil },
		IDToken:     func(aud, iss string) (string, error) { return "id-token-for-" + aud + "-" + iss, nil },
	}
	h, err := d.Handler()
	require.NoError(t, err)
	verifier := strings.Repeat("v", 50)
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])

	authorize := func(t *testing.T, q url.Values) *http.Response {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, auth.DevIssuerPath+"/authorize?"+q.Encode(), nil))
		return rec.Result()
	}
	params := func() url.Values {
		return url.Values{"client_id": {auth.DevClientID}, "redirect_uri": {base + "/app/"}, "response_type": {"code"},
			"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"s1"}, "response_mode": {"fragment"}}
	}
	codeOf := func(t *testing.T, resp *http.Response) string {
		t.Helper()
		require.Equal(t, http.StatusFound, resp.StatusCode)
		loc, err := url.Parse(resp.Header.Get("Location"))
		require.NoError(t, err)
		require.Empty(t, loc.RawQuery, "the code never travels in the query")
		frag, err := url.ParseQuery(loc.Fragment)
		require.NoError(t, err)
		require.Equal(t, "s1", frag.Get("state"))
		return frag.Get("code")
	}
	exchange := func(t *testing.T, form url.Values) (int, map[string]any) {
		t.Helper()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, auth.DevIssuerPath+"/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		h.ServeHTTP(rec, req)
		var out map[string]any
		require.NoError(t, json.NewDecoder(rec.Result().Body).Decode(&out))
		return rec.Code, out
	}
	form := func(code, v string) url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {v},
			"client_id": {auth.DevClientID}, "redirect_uri": {base + "/app/"}}
	}

	t.Run("the dev user is signed in without a page, and the code is exchanged once with its verifier", func(t *testing.T) {
		code := codeOf(t, authorize(t, params()))
		require.NotEmpty(t, code)
		status, out := exchange(t, form(code, verifier))
		require.Equal(t, http.StatusOK, status, out)
		require.Equal(t, "access-token", out["access_token"])
		require.Equal(t, "Bearer", out["token_type"])
		require.Equal(t, "id-token-for-"+auth.DevClientID+"-"+base+auth.DevIssuerPath, out["id_token"])
		status, out = exchange(t, form(code, verifier))
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", out["error"], "a code is used once")
	})

	t.Run("a wrong verifier is refused and burns the code", func(t *testing.T) {
		code := codeOf(t, authorize(t, params()))
		before := minted
		status, out := exchange(t, form(code, strings.Repeat("w", 50)))
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", out["error"])
		require.Equal(t, before, minted, "no token minted")
		status, _ = exchange(t, form(code, verifier))
		require.Equal(t, http.StatusBadRequest, status)
	})

	t.Run("no code without PKCE, and never to another site", func(t *testing.T) {
		q := params()
		q.Del("code_challenge")
		resp := authorize(t, q)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		frag, _ := url.ParseQuery(loc.Fragment)
		require.Equal(t, "invalid_request", frag.Get("error"))
		require.Empty(t, frag.Get("code"))

		q = params()
		q.Set("redirect_uri", "https://evil.example/app/")
		resp = authorize(t, q)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode)
		require.Empty(t, resp.Header.Get("Location"))
	})

	t.Run("discovery names the endpoints and S256", func(t *testing.T) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, auth.DevIssuerPath+"/.well-known/openid-configuration", nil))
		resp := rec.Result()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		body := string(b)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, body, `"authorization_endpoint":"`+base+`/dev/oidc/authorize"`)
		require.Contains(t, body, `"S256"`)
	})
}
