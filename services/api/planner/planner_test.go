package planner_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/api/planner"
)

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	b, err := io.ReadAll(rec.Result().Body)
	require.NoError(t, err)
	return rec.Result(), string(b)
}

func TestHandler(t *testing.T) {
	t.Parallel()
	h, err := planner.Handler(planner.Config{
		OIDC:  planner.OIDC{Issuer: "https://id.example/realms/roadbook", ClientID: "planner"},
		Tiles: planner.Tiles{URL: "https://{s}.tiles.example/{z}/{x}/{y}.png", Attribution: "© OSM"},
	})
	require.NoError(t, err)

	t.Run("the page is the committed bundle under a strict policy without inline script", func(t *testing.T) {
		t.Parallel()
		resp, body := get(t, h, "/app/")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, body, `<script type="module" src="/app/assets/app-`)
		require.NotRegexp(t, `<script>|<script [^>]*>[^<]`, body, "no inline script")
		csp := resp.Header.Get("Content-Security-Policy")
		require.Contains(t, csp, "script-src 'self';")
		require.NotContains(t, csp, "unsafe-inline")
		require.Contains(t, csp, "connect-src 'self' https://id.example;")
		require.Contains(t, csp, "img-src 'self' data: blob: https://*.tiles.example;")
		require.Contains(t, csp, "frame-ancestors 'none'")
		require.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
	})

	t.Run("a view path is the same page, routed in the browser", func(t *testing.T) {
		t.Parallel()
		resp, body := get(t, h, "/app/trips/6f1c2a9e-3b4d-4c5e-8f70-123456789abc")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, body, "/app/assets/app-")
	})

	t.Run("the assets the page names are served and cached for good", func(t *testing.T) {
		t.Parallel()
		_, page := get(t, h, "/app/")
		for _, m := range regexp.MustCompile(`/app/assets/[^"]+`).FindAllString(page, -1) {
			resp, body := get(t, h, m)
			require.Equal(t, http.StatusOK, resp.StatusCode, m)
			require.NotEmpty(t, body)
			require.Contains(t, resp.Header.Get("Cache-Control"), "immutable")
		}
		resp, _ := get(t, h, "/app/assets/nope.js")
		require.Equal(t, http.StatusNotFound, resp.StatusCode)
		resp, _ = get(t, h, "/app/robots.txt")
		require.Equal(t, http.StatusNotFound, resp.StatusCode, "an unknown file is not the page")
	})

	t.Run("config.json carries the issuer, the client and the tiles", func(t *testing.T) {
		t.Parallel()
		resp, body := get(t, h, "/app/config.json")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var cfg planner.Config
		require.NoError(t, json.Unmarshal([]byte(body), &cfg))
		require.Equal(t, "https://id.example/realms/roadbook", cfg.OIDC.Issuer)
		require.Equal(t, planner.DefaultScope, cfg.OIDC.Scope)
		require.Equal(t, 18, cfg.Tiles.MaxZoom)
	})

	t.Run("a bad configuration is refused at start-up, naming the field", func(t *testing.T) {
		t.Parallel()
		_, err := planner.Handler(planner.Config{Tiles: planner.Tiles{URL: "tiles/{z}/{x}/{y}.png"}})
		require.ErrorContains(t, err, "Tiles.URL")
		_, err = planner.Handler(planner.Config{OIDC: planner.OIDC{Issuer: "https://id.example"}})
		require.ErrorContains(t, err, "ClientID")
	})
}

func TestDevSignIn(t *testing.T) {
	t.Parallel()
	const base = "http://127.0.0.1:8080"
	minted := 0
	d := &planner.DevSignIn{
		Issuer: base + planner.DevIssuerPath, ClientID: planner.DevClientID, RedirectPrefix: base + planner.Prefix,
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
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, planner.DevIssuerPath+"/authorize?"+q.Encode(), nil))
		return rec.Result()
	}
	params := func() url.Values {
		return url.Values{"client_id": {planner.DevClientID}, "redirect_uri": {base + "/app/"}, "response_type": {"code"},
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
		req := httptest.NewRequest(http.MethodPost, planner.DevIssuerPath+"/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		h.ServeHTTP(rec, req)
		var out map[string]any
		require.NoError(t, json.NewDecoder(rec.Result().Body).Decode(&out))
		return rec.Code, out
	}
	form := func(code, v string) url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {v},
			"client_id": {planner.DevClientID}, "redirect_uri": {base + "/app/"}}
	}

	t.Run("the dev user is signed in without a page, and the code is exchanged once with its verifier", func(t *testing.T) {
		code := codeOf(t, authorize(t, params()))
		require.NotEmpty(t, code)
		status, out := exchange(t, form(code, verifier))
		require.Equal(t, http.StatusOK, status, out)
		require.Equal(t, "access-token", out["access_token"])
		require.Equal(t, "Bearer", out["token_type"])
		require.Equal(t, "id-token-for-"+planner.DevClientID+"-"+base+planner.DevIssuerPath, out["id_token"])
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
		resp, body := get(t, h, planner.DevIssuerPath+"/.well-known/openid-configuration")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, body, `"authorization_endpoint":"`+base+`/dev/oidc/authorize"`)
		require.Contains(t, body, `"S256"`)
	})
}
