package main

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/testkit"
)

// TestProcessMetrics runs api, worker and mcp as separate processes and
// scrapes each one's /metrics: all three export the Go runtime and process
// series (processRegistry), so the soak can follow goroutines and RSS of
// every service, not only of mcp.
func TestProcessMetrics(t *testing.T) {
	t.Parallel()
	dbURL := testkit.SchemaURL(t)
	natsURL := startNATS(t)
	issuer := newRSAIssuer(t)
	apiAddr, apiAdminAddr, mcpAddr, workerAddr := freeAddr(t), freeAddr(t), freeAddr(t), freeAddr(t)
	common := []string{"ROADBOOK_DATABASE_URL=" + dbURL, "ROADBOOK_NATS_URL=" + natsURL, "ROADBOOK_JWKS_URL=" + issuer.jwksURL,
		"ROADBOOK_JWT_ISSUER=" + issuer.iss, "ROADBOOK_MCP_SERVICE_KEY=" + strings.Repeat("s", 40), "ROADBOOK_MCP_SERVICE_KEY_ID=mcp-test",
		"ROADBOOK_LOG_LEVEL=warn"}

	_, errOut, code := cli(t, "migrate", "--database-url", dbURL)
	require.Equal(t, 0, code, errOut)
	api := start(t, append(common, "ROADBOOK_HTTP_ADDR="+apiAddr, "ROADBOOK_ADMIN_ADDR="+apiAdminAddr, "ROADBOOK_PUBLIC_BASE_URL=http://"+apiAddr), "api")
	worker := start(t, append(common, "ROADBOOK_HTTP_ADDR="+workerAddr), "worker")
	mcp := start(t, append(common, "ROADBOOK_HTTP_ADDR="+mcpAddr, "ROADBOOK_API_URL=http://"+apiAddr,
		"ROADBOOK_PUBLIC_BASE_URL=http://"+mcpAddr, "ROADBOOK_MCP_AUDIENCE=http://"+mcpAddr+"/mcp",
		"ROADBOOK_MCP_CURSOR_KEY="+strings.Repeat("c", 40), "ROADBOOK_MCP_CONFIRM_KEY="+strings.Repeat("k", 40)), "mcp")
	// The API's metrics are on its admin port, not the public one.
	for _, pr := range []struct {
		name string
		p    *process
		addr string
	}{{"api", api, apiAdminAddr}, {"worker", worker, workerAddr}, {"mcp", mcp, mcpAddr}} {
		name := pr.name
		waitStatus(t, pr.p, "http://"+pr.addr+"/readyz", http.StatusOK)
		t.Run(name+" exports its goroutines and resident memory on /metrics", func(t *testing.T) {
			series := scrape(t, "http://"+pr.addr+"/metrics")
			require.Contains(t, series, "go_goroutines", "%s /metrics", name)
			require.Contains(t, series, "process_resident_memory_bytes", "%s /metrics", name)
			require.GreaterOrEqual(t, series["go_goroutines"], 1.0, "a live process has at least one goroutine")
			require.Positive(t, series["process_resident_memory_bytes"])
		})
	}
	t.Run("the API and the worker export their announcements of commits to the relay", func(t *testing.T) {
		for _, addr := range []string{apiAdminAddr, workerAddr} {
			resp, err := http.Get("http://" + addr + "/metrics")
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			for _, outcome := range []string{"sent", "failed", "skipped"} {
				series := `roadbook_feed_announcements_total{outcome="` + outcome + `"}`
				require.True(t, strings.Contains(string(body), series), "%s /metrics has no %s", addr, series)
			}
		}
	})
	t.Run("the API's public port serves no metrics", func(t *testing.T) {
		resp, err := http.Get("http://" + apiAddr + "/metrics")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusNotFound, resp.StatusCode)
	})
}

// scrape reads a Prometheus text exposition into unlabelled series and
// their values (labelled series are skipped).
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		require.NoError(t, err, "series %s", name)
		out[name] = v
	}
	require.NoError(t, sc.Err())
	return out
}
