package main

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/testkit"
)

// TestWorkerProfiles runs workers as processes: the profiling endpoints are
// on the health port only when asked for, and a malformed switch is refused
// naming the variable.
func TestWorkerProfiles(t *testing.T) {
	t.Parallel()
	dbURL := testkit.SchemaURL(t)
	natsURL := startNATS(t)
	_, errOut, code := cli(t, "migrate", "--database-url", dbURL)
	require.Equal(t, 0, code, errOut)
	common := []string{"ROADBOOK_DATABASE_URL=" + dbURL, "ROADBOOK_NATS_URL=" + natsURL, "ROADBOOK_LOG_LEVEL=warn"}
	status := func(url string) int {
		resp, err := http.Get(url)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}

	t.Run("by default the worker serves no profiles", func(t *testing.T) {
		t.Parallel()
		addr := freeAddr(t)
		w := start(t, append(common, "ROADBOOK_HTTP_ADDR="+addr), "worker")
		waitStatus(t, w, "http://"+addr+"/readyz", http.StatusOK)
		require.Equal(t, http.StatusNotFound, status("http://"+addr+"/debug/pprof/"))
	})

	t.Run("with ROADBOOK_PPROF=true it serves them beside the probes", func(t *testing.T) {
		t.Parallel()
		addr := freeAddr(t)
		w := start(t, append(common, "ROADBOOK_HTTP_ADDR="+addr, "ROADBOOK_PPROF=true"), "worker")
		waitStatus(t, w, "http://"+addr+"/readyz", http.StatusOK)
		require.Equal(t, http.StatusOK, status("http://"+addr+"/debug/pprof/"))
		require.Equal(t, http.StatusOK, status("http://"+addr+"/debug/pprof/goroutine?debug=1"))
		require.Equal(t, http.StatusOK, status("http://"+addr+"/healthz"))
		require.Equal(t, http.StatusOK, status("http://"+addr+"/metrics"))
	})

	t.Run("a switch that is not a boolean is refused naming the variable", func(t *testing.T) {
		t.Parallel()
		w := start(t, append(common, "ROADBOOK_HTTP_ADDR="+freeAddr(t), "ROADBOOK_PPROF=maybe"), "worker")
		require.NotZero(t, w.wait(t, 30*time.Second))
		require.Contains(t, w.stderr.String(), `ROADBOOK_PPROF="maybe"`)
	})
}
