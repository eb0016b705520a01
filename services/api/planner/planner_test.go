package planner_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

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
