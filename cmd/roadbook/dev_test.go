package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/cmd/roadbook/internal/devstate"
)

// stageRow matches a stage line of the digest: "  3  -   80.0   1353   1200    5.4  Otta → 12 km N of Dombås".
var stageRow = regexp.MustCompile(`(?m)^\s+\d+\s+\S+\s+\d+\.\d\s+\d+\s+\d+\s+\d+\.\d\s+.+ → .+$`)

func TestDevEndToEnd(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	gpx := osloGPX(t)
	devArgs := []string{"dev", "--data-dir", dir, "--api-addr", "127.0.0.1:0", "--mcp-addr", "127.0.0.1:0"}

	outer := t
	dev := start(t, nil, devArgs...)
	info := waitDevJSON(t, dev, dir)
	require.Regexp(t, `^http://127\.0\.0\.1:\d+$`, info.APIURL)
	require.Regexp(t, `^http://127\.0\.0\.1:\d+/mcp$`, info.MCPURL)
	require.NotEmpty(t, info.APIToken)
	require.NotEmpty(t, info.MCPToken)
	require.Contains(t, dev.stdout.String(), info.APIURL, "the banner prints the Connect URL")
	require.Equal(t, info.APIURL+"/app/", info.AppURL, "dev.json names the planner")
	require.Contains(t, dev.stdout.String(), "Planner      "+info.AppURL, "the banner prints the planner URL first")
	resp, err := http.Get(info.AppURL)
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(page), "/app/assets/app-", "roadbook dev serves the embedded planner")
	resp, err = http.Get(info.APIURL + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "roadbook dev, one process on loopback, serves the admin routes on its API port")
	require.Contains(t, dev.stdout.String(), `"mcpServers"`, "the banner prints an MCP client configuration")
	require.Eventually(t, func() bool {
		return strings.Contains(dev.stdout.String(), "weather (forecast, typical beyond 16 days)") &&
			strings.Contains(dev.stdout.String(), "off (--overpass-url or --providers public)")
	}, 10*time.Second, 20*time.Millisecond, "the banner says which data providers are off and how to turn them on:\n%s", dev.stdout.String())

	var tripID string
	t.Run("trip create uploads the 627 km route, follows the progress and prints the digest with its stages", func(t *testing.T) {
		out, errOut, code := cli(t, "trip", "create", "--data-dir", dir, "--gpx", gpx, "--title", "Oslo to Trondheim")
		require.Equal(t, 0, code, "stderr: %s", errOut)
		require.Contains(t, errOut, "route done", "the progress bar names the parts")
		require.Contains(t, errOut, "stages done")
		require.Contains(t, out, "Oslo to Trondheim")
		require.Regexp(t, `62\d\.\d km`, out)
		rows := stageRow.FindAllString(out, -1)
		require.Len(t, rows, 8, "the intermediate rider rides the 627 km in 8 days:\n%s", out)
		require.Contains(t, out, "rider intermediate · 18 km/h on the flat · 6 h a day · 150 km cap · fatigue 0.9", "the digest says who the days are for:\n%s", out)
		require.Contains(t, out, "Oslo → ", "the gazetteer names the first stage's start:\n%s", out)
		require.NotContains(t, out, "?", "every stage end is labelled, never '?':\n%s", out)
		require.NotContains(t, out, "(naming…)", "every stage end is labelled:\n%s", out)
		require.Regexp(t, `\d+ km (N|NE|E|SE|S|SW|W|NW) of \S`, out, "ends away from a place say where they are:\n%s", out)
		m := regexp.MustCompile(`id ([0-9a-f-]{36})`).FindStringSubmatch(out)
		require.NotNil(t, m, out)
		tripID = m[1]
	})
	require.NotEmpty(t, tripID)

	t.Run("trip create --preset expert paces the same route for an expert: fewer, longer days", func(t *testing.T) {
		out, errOut, code := cli(t, "trip", "create", "--data-dir", dir, "--gpx", gpx, "--title", "Oslo to Trondheim, fast", "--preset", "expert")
		require.Equal(t, 0, code, "stderr: %s", errOut)
		require.Contains(t, out, "rider expert · 22 km/h on the flat · 8 h a day · 250 km cap · fatigue 0.95", out)
		rows := stageRow.FindAllString(out, -1)
		require.GreaterOrEqual(t, len(rows), 4, out)
		require.Less(t, len(rows), 8, "an expert needs fewer days than the intermediate rider's 8:\n%s", out)
		t.Log("\n" + out)
	})

	t.Run("the trip survives a restart of roadbook dev", func(t *testing.T) {
		require.Equal(t, 0, dev.stop(t), "SIGTERM stops dev cleanly; stderr: %s", dev.stderr.String())
		_, err := os.Stat(filepath.Join(dir, devstate.InfoFile))
		require.ErrorIs(t, err, os.ErrNotExist, "a stopped instance leaves no dev.json behind")

		dev = start(outer, nil, append(devArgs, "--no-auth")...) // lives beyond this subtest
		info = waitDevJSON(t, dev, dir)
		out, errOut, code := cli(t, "trip", "list", "--data-dir", dir)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, tripID)
		require.Contains(t, out, "Oslo to Trondheim")
	})

	t.Run("trip show draws one elevation sparkline per stage", func(t *testing.T) {
		out, errOut, code := cli(t, "trip", "show", tripID, "--data-dir", dir)
		require.Equal(t, 0, code, errOut)
		_, profiles, ok := strings.Cut(out, "Elevation profiles")
		require.True(t, ok, out)
		lines := regexp.MustCompile(`(?m)^\s+\d+\s+[▁▂▃▄▅▆▇█]{20,}\s`).FindAllString(profiles, -1)
		require.Len(t, lines, len(stageRow.FindAllString(out, -1)))
		require.Contains(t, profiles, "█", "the highest stage reaches the top of the shared scale")
	})

	t.Run("trip export writes the text roadbook and a GPX file", func(t *testing.T) {
		out, errOut, code := cli(t, "trip", "export", tripID, "--data-dir", dir, "--format", "text")
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, "Day 1")
		require.Regexp(t, "\nDay 1: [^\n]+\n  Oslo → \\S", out, "the day's line is followed by where it goes:\n%s", out)
		// One set of totals: the roadbook's total is the digest's.
		total := regexp.MustCompile(`Total: (\d+\.\d) km`).FindStringSubmatch(out)
		require.NotNil(t, total, out)
		show, errOut, code := cli(t, "trip", "show", tripID, "--data-dir", dir)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, show, "  "+total[1]+" km · ", "the CLI digest and the text roadbook state one total:\n%s", show)
		file := filepath.Join(t.TempDir(), "trip.gpx")
		_, errOut, code = cli(t, "trip", "export", tripID, "--data-dir", dir, "--format", "gpx", "-o", file)
		require.Equal(t, 0, code, errOut)
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Contains(t, string(b), "<gpx")
	})

	t.Run("one day's text export, its flags before the trip id, is that day alone", func(t *testing.T) {
		out, errOut, code := cli(t, "trip", "export", "--data-dir", dir, "--format", "text", "--stage", "1", tripID)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, " · Day 1 of ")
		require.Contains(t, out, "\nDay 1: ")
		require.NotContains(t, out, "Day 2:")
		require.NotContains(t, out, "Budget:")
		_, errOut, code = cli(t, "trip", "export", tripID, "--data-dir", dir, "--format", "text", "--stage", "99")
		require.Equal(t, 1, code)
		require.Contains(t, errOut, "invalid_argument: --stage: no such stage (the trip has ", "the error names the flag typed, not the API's field")
		require.NotContains(t, errOut, "stageIndex")
	})

	t.Run("a token minted for another user sees none of the dev user's trips", func(t *testing.T) {
		tok, errOut, code := cli(t, "token", "--data-dir", dir, "--user", "bob")
		require.Equal(t, 0, code, errOut)
		tok = strings.TrimSpace(tok)
		out, errOut, code := cli(t, "trip", "list", "--data-dir", dir, "--token", tok)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, "no trips yet")
		require.NotContains(t, out, tripID)
		_, errOut, code = cli(t, "trip", "show", tripID, "--data-dir", dir, "--token", tok)
		require.Equal(t, 1, code)
		require.Contains(t, errOut, "not_found")
	})

	t.Run("with --no-auth a request without a token acts as the dev user", func(t *testing.T) {
		resp, err := http.Post(info.APIURL+"/roadbook.v1.TripService/ListTrips", "application/json", strings.NewReader("{}"))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		b := new(strings.Builder)
		_, err = io.Copy(b, resp.Body)
		require.NoError(t, err)
		require.Contains(t, b.String(), tripID)
	})

	t.Run("with --no-auth a foreign Host or Origin is refused (DNS rebinding)", func(t *testing.T) {
		call := func(host, origin string) int {
			req, err := http.NewRequest(http.MethodPost, info.APIURL+"/roadbook.v1.TripService/ListTrips", strings.NewReader("{}"))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			if host != "" {
				req.Host = host
			}
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}
		port := info.APIURL[strings.LastIndex(info.APIURL, ":")+1:]
		require.Equal(t, http.StatusForbidden, call("rebound.example:"+port, ""), "a page whose name now resolves to 127.0.0.1")
		require.Equal(t, http.StatusForbidden, call("", "http://rebound.example:"+port), "a cross-site page's request")
		require.Equal(t, http.StatusOK, call("localhost:"+port, info.APIURL), "the planner's own origin still works")
	})

	require.Equal(t, 0, dev.stop(t), dev.stderr.String())
}
