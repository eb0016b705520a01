package rebinding_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth/rebinding"
)

func TestGuard(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	status := func(g *rebinding.Guard, host, origin string) int {
		r := httptest.NewRequest(http.MethodPost, "/x", nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		g.Wrap(ok).ServeHTTP(w, r)
		return w.Code
	}
	loopback := rebinding.New(&url.URL{Scheme: "http", Host: "127.0.0.1:8080"}, nil, nil)
	public := rebinding.New(&url.URL{Scheme: "https", Host: "mcp.example"}, []string{"roadbook-mcp:8090"}, []string{"https://app.example"})

	t.Run("the service's own Host and Origin pass", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, http.StatusNoContent, status(loopback, "127.0.0.1:8080", "http://127.0.0.1:8080"))
		require.Equal(t, http.StatusNoContent, status(public, "mcp.example", "https://mcp.example"))
		require.Equal(t, http.StatusNoContent, status(public, "roadbook-mcp:8090", "https://app.example"), "configured extras pass")
	})

	t.Run("every loopback name on the listener's port passes", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, http.StatusNoContent, status(loopback, "localhost:8080", "http://localhost:8080"))
		require.Equal(t, http.StatusNoContent, status(loopback, "[::1]:8080", ""))
	})

	t.Run("a rebound name is refused by its Host", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, http.StatusForbidden, status(loopback, "evil.example:8080", ""))
		require.Equal(t, http.StatusForbidden, status(public, "evil.example", ""))
	})

	t.Run("a foreign Origin is refused even with the right Host", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, http.StatusForbidden, status(loopback, "127.0.0.1:8080", "http://evil.example:8080"))
		require.Equal(t, http.StatusForbidden, status(loopback, "127.0.0.1:8080", "http://localhost:5173"), "another loopback port is another origin")
		require.Equal(t, http.StatusForbidden, status(loopback, "127.0.0.1:8080", "null"))
		require.Equal(t, http.StatusForbidden, status(public, "mcp.example", "https://evil.example"))
	})
}
