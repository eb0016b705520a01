package apiserver_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/muktihari/fit/decoder"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/api/apiserver"
)

// The browser tests drive Debian's chromium headless (no Node, no driver):
// --screenshot for what a person sees, --dump-dom for what the browser
// parsed. `make test` installs chromium (scripts/ensure-chromium.sh) and
// builds the Connect-Web example (scripts/build-web-client.sh); elsewhere a
// missing piece skips the test loudly, and under CI=true or make it fails.

// requireTool skips (locally) or fails (under CI or make) when a browser
// test's dependency is missing.
func requireTool(t *testing.T, what, fix string) {
	t.Helper()
	msg := fmt.Sprintf("\n\n!!! BROWSER TEST NOT RUN: %s is missing. %s\n\n", what, fix)
	if os.Getenv("CI") == "true" || os.Getenv("MAKELEVEL") != "" {
		t.Fatal(msg)
	}
	fmt.Fprint(os.Stderr, msg)
	t.Skip(msg)
}

// chromiumPath is ROADBOOK_CHROMIUM or chromium on PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	name := os.Getenv("ROADBOOK_CHROMIUM")
	if name == "" {
		name = "chromium"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		requireTool(t, "chromium", "Run scripts/ensure-chromium.sh (apt-get install -y chromium); `make test` does.")
	}
	return p
}

// runChromium runs one headless chromium command with a throwaway profile
// and no background traffic, returning its standard output.
func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
		"--disable-dev-shm-usage", "--mute-audio", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium %v: %s", args, stderr.String())
	return stdout.Bytes()
}

// artifactDir keeps screenshots: $ROADBOOK_ARTIFACTS/<test> when set (CI
// uploads it), else a temporary directory. Never in the source tree.
func artifactDir(t *testing.T) string {
	t.Helper()
	root := os.Getenv("ROADBOOK_ARTIFACTS")
	if root == "" {
		return t.TempDir()
	}
	dir := filepath.Join(root, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// profileFill is the area colour of package profile's drawings.
var profileFill = color.RGBA{0xcf, 0xe3, 0xc8, 0xff}

// band is a vertical run of screenshot rows showing a profile's fill.
type band struct{ top, bottom, left, right int }

// profileBands finds the profiles drawn in a screenshot: runs of rows
// holding at least 20 pixels of the fill colour, with their horizontal
// extent. Profiles are separated by card gaps, so each run is one drawing.
func profileBands(img image.Image) []band {
	var out []band
	b := img.Bounds()
	in := false
	for y := b.Min.Y; y < b.Max.Y; y++ {
		n, left, right := 0, b.Max.X, -1
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == profileFill.R && uint8(g>>8) == profileFill.G && uint8(bl>>8) == profileFill.B {
				n++
				left, right = min(left, x), max(right, x)
			}
		}
		switch {
		case n >= 20 && !in:
			out = append(out, band{top: y, bottom: y, left: left, right: right})
			in = true
		case n >= 20:
			cur := &out[len(out)-1]
			cur.bottom, cur.left, cur.right = y, min(cur.left, left), max(cur.right, right)
		default:
			in = false
		}
	}
	return out
}

var domHref = regexp.MustCompile(`href="(/s/[^"]+)"`)

func TestSharePageInChromium(t *testing.T) {
	t.Parallel()
	bin := chromiumPath(t)
	h := newBrowserAPI(t, nil)
	tr := h.plannedTrip(t, "ann", hostileTitle, 0, true)
	riding := 0
	for _, st := range tr.state.Stages {
		if !st.RestDay {
			riding++
		}
	}
	pageURL := h.url + "/s/" + tr.code
	dir := artifactDir(t)

	// Both widths run one after the other: chromium is heavy on a small machine.
	for _, tc := range []struct {
		width, height int
		stacked       bool
	}{{1280, 3000, false}, {360, 7000, true}} {
		t.Run(fmt.Sprintf("at %d px wide every day and its profile render", tc.width), func(t *testing.T) {
			shot := filepath.Join(dir, fmt.Sprintf("share-%d.png", tc.width))
			runChromium(t, bin, "--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", tc.width, tc.height), pageURL)
			f, err := os.Open(shot)
			require.NoError(t, err)
			defer f.Close()
			img, err := png.Decode(f)
			require.NoError(t, err)
			require.Equal(t, tc.width, img.Bounds().Dx(), "the viewport is %d px wide", tc.width)
			t.Logf("screenshot %s (%dx%d)", shot, img.Bounds().Dx(), img.Bounds().Dy())

			bands := profileBands(img)
			require.Len(t, bands, riding+1, "the whole trip's profile and one per riding day, all drawn: %+v", bands)
			require.Less(t, bands[len(bands)-1].bottom, tc.height-5, "the last day fits in the screenshot")
			for i, b := range bands[1:] {
				w := b.right - b.left
				if tc.stacked {
					// One column: the profile spans the card, nothing overflows.
					require.Greater(t, w, tc.width*2/3, "day %d profile width", i+1)
					require.Less(t, b.right, tc.width, "day %d stays inside the screen", i+1)
				} else {
					// Two columns: the profile sits right of the day's facts.
					require.Greater(t, b.left, tc.width*2/5, "day %d profile is in the right column", i+1)
					require.Greater(t, w, 400, "day %d profile width", i+1)
				}
			}
		})
	}

	t.Run("the DOM holds every day and its links download valid GPX and FIT", func(t *testing.T) {
		dom := string(runChromium(t, bin, "--dump-dom", "--window-size=360,800", pageURL))
		require.True(t, strings.Contains(dom, "Oslo &lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; \"Trondheim\""), "the title is text, not markup")
		require.False(t, strings.Contains(dom, "<script"), "no script element reached the DOM")
		for _, st := range tr.state.Stages {
			require.True(t, strings.Contains(dom, `id="day-`+strconv.Itoa(st.Index+1)+`"`), "day %d", st.Index+1)
		}
		require.Equal(t, riding+1, strings.Count(dom, `class="profile"`))
		links := domHref.FindAllStringSubmatch(dom, -1)
		require.Len(t, links, 2+2*riding)
		for _, l := range links {
			href := html.UnescapeString(l[1])
			resp, body := h.get(t, href)
			require.Equal(t, http.StatusOK, resp.StatusCode, href)
			if strings.HasSuffix(href, ".gpx") {
				r, err := route.ReadGPX(strings.NewReader(body))
				require.NoError(t, err, href)
				require.NotEmpty(t, r.Points, href)
				continue
			}
			_, err := decoder.New(strings.NewReader(body)).Decode()
			require.NoError(t, err, href)
		}
	})
}

// webBundle is the Connect-Web example built by scripts/build-web-client.sh.
func webBundle(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "clients", "web", "dist", "app.js"))
	if err != nil {
		requireTool(t, "clients/web/dist/app.js", "Run scripts/build-web-client.sh (npm ci, buf generate, esbuild); `make test` does.")
	}
	return b
}

// webOrigin is a listener on its own port, so its own origin, for a page
// the API must allow (or not) before the page exists.
func webOrigin(t *testing.T) (net.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return ln, "http://" + ln.Addr().String()
}

// serveWebPage serves the Connect-Web example on ln, pointed at api with
// token (third-party-free: the page and its one script come from ln).
func serveWebPage(t *testing.T, ln net.Listener, bundle []byte, api, token string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /app.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write(bundle)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><meta charset="utf-8"><title>trips</title>`+
			`<script src="/app.js" defer></script></head><body data-api="%s" data-token="%s"></body></html>`,
			html.EscapeString(api), html.EscapeString(token))
	})
	s := httptest.NewUnstartedServer(mux)
	require.NoError(t, s.Listener.Close())
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
}

func TestConnectWebThroughCORS(t *testing.T) {
	t.Parallel()
	bin := chromiumPath(t)
	bundle := webBundle(t)

	allowedLn, allowed := webOrigin(t)
	otherLn, other := webOrigin(t) // an origin the API does not allow
	h := newBrowserAPI(t, func(c *apiserver.Config) {
		c.CORS = apiserver.CORSConfig{AllowedOrigins: []string{allowed}}
	})
	token := h.token(t, "ann")
	serveWebPage(t, allowedLn, bundle, h.url, token)
	serveWebPage(t, otherLn, bundle, h.url, token)

	first := h.plannedTrip(t, "ann", hostileTitle, 0, false)
	second := h.plannedTrip(t, "ann", "Second trip north", 0, false)
	bobs := h.plannedTrip(t, "bob", "Bob's secret trip", 0, false)

	t.Run("a page on an allowed origin lists the owner's trips with Connect-Web", func(t *testing.T) {
		dom := string(runChromium(t, bin, "--dump-dom", "--virtual-time-budget=20000", allowed+"/"))
		require.NotContains(t, dom, `id="error"`)
		require.Equal(t, 2, strings.Count(dom, `<li class="trip"`), dom)
		require.Contains(t, dom, `data-trip-id="`+first.id+`">Oslo &lt;script&gt;alert("x")&lt;/script&gt; &amp; "Trondheim"</li>`)
		require.Contains(t, dom, `data-trip-id="`+second.id+`">Second trip north</li>`)
		require.NotContains(t, dom, bobs.id)
	})

	t.Run("a page on another origin is refused by the browser", func(t *testing.T) {
		dom := string(runChromium(t, bin, "--dump-dom", "--virtual-time-budget=20000", other+"/"))
		errText := regexp.MustCompile(`<p id="error">([^<]*)</p>`).FindStringSubmatch(dom)
		require.Len(t, errText, 2, dom)
		t.Logf("the page on %s shows: %s", other, errText[1])
		require.Contains(t, errText[1], "Failed to fetch", "the browser refused the cross-origin call")
		require.NotContains(t, dom, `class="trip"`)
	})
}
