package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
)

func TestCORS(t *testing.T) {
	t.Parallel()
	const app = "https://app.roadbook.test"
	h := newBrowserAPI(t, func(c *apiserver.Config) {
		c.CORS = apiserver.CORSConfig{AllowedOrigins: []string{app}, AllowCredentials: true}
	})
	list := roadbookv1connect.TripServiceListTripsProcedure

	do := func(t *testing.T, method, origin string, header ...string) *http.Response {
		t.Helper()
		var body *strings.Reader
		if method == http.MethodPost {
			body = strings.NewReader("{}")
		} else {
			body = strings.NewReader("")
		}
		req, err := http.NewRequest(method, h.url+list, body)
		require.NoError(t, err)
		req.Header.Set("Origin", origin)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := h.http.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}

	t.Run("a preflight from an allowed origin gets the Connect, gRPC-Web and Roadbook headers", func(t *testing.T) {
		t.Parallel()
		// A browser sends the requested headers lowercase and sorted (Fetch).
		asked := "authorization,connect-protocol-version,connect-timeout-ms,content-type,grpc-timeout,idempotency-key,traceparent,x-grpc-web"
		resp := do(t, http.MethodOptions, app, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", asked)
		require.Equal(t, http.StatusNoContent, resp.StatusCode)
		require.Equal(t, app, resp.Header.Get("Access-Control-Allow-Origin"))
		require.Equal(t, "true", resp.Header.Get("Access-Control-Allow-Credentials"))
		require.Contains(t, resp.Header.Get("Access-Control-Allow-Methods"), "POST")
		require.Equal(t, asked, resp.Header.Get("Access-Control-Allow-Headers"))
		require.Equal(t, "7200", resp.Header.Get("Access-Control-Max-Age"))
		require.Contains(t, strings.Join(resp.Header.Values("Vary"), ", "), "Origin")
	})

	t.Run("a preflight asking for a header on no list is not allowed", func(t *testing.T) {
		t.Parallel()
		resp := do(t, http.MethodOptions, app, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,x-smuggled")
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Headers"))
	})

	t.Run("a preflight for a method Connect does not use is not allowed", func(t *testing.T) {
		t.Parallel()
		resp := do(t, http.MethodOptions, app, "Access-Control-Request-Method", "DELETE")
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Methods"))
	})

	t.Run("an actual call from an allowed origin exposes the gRPC-Web status headers", func(t *testing.T) {
		t.Parallel()
		resp := do(t, http.MethodPost, app, "Content-Type", "application/json", "Authorization", "Bearer "+h.token(t, "ann"))
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, app, resp.Header.Get("Access-Control-Allow-Origin"))
		require.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "Grpc-Status")
		require.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "Www-Authenticate")
	})

	t.Run("another origin gets no CORS header, preflight or not", func(t *testing.T) {
		t.Parallel()
		resp := do(t, http.MethodOptions, "https://evil.test", "Access-Control-Request-Method", "POST")
		require.Equal(t, http.StatusNoContent, resp.StatusCode)
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Headers"))
		resp = do(t, http.MethodPost, "https://evil.test", "Content-Type", "application/json", "Authorization", "Bearer "+h.token(t, "ann"))
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
	})

	t.Run("a wildcard allows any origin without credentials", func(t *testing.T) {
		t.Parallel()
		w := newBrowserAPI(t, func(c *apiserver.Config) { c.CORS = apiserver.CORSConfig{AllowedOrigins: []string{"*"}} })
		req, err := http.NewRequest(http.MethodOptions, w.url+list, nil)
		require.NoError(t, err)
		req.Header.Set("Origin", "https://anywhere.test")
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := w.http.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Credentials"))
	})
}

func TestCORSConfigIsChecked(t *testing.T) {
	t.Parallel()
	base, _ := browserConfig(t)
	for _, tc := range []struct {
		name string
		cfg  apiserver.CORSConfig
		want string
	}{
		{"credentials with the wildcard", apiserver.CORSConfig{AllowedOrigins: []string{"*"}, AllowCredentials: true}, "AllowCredentials cannot be combined"},
		{"an origin with a path", apiserver.CORSConfig{AllowedOrigins: []string{"https://app.test/x"}}, `"https://app.test/x" is not an origin`},
		{"an origin without a scheme", apiserver.CORSConfig{AllowedOrigins: []string{"app.test"}}, `"app.test" is not an origin`},
	} {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := base
			cfg.CORS = tc.cfg
			_, err := apiserver.New(cfg)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
