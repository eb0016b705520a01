package apiserver_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/muktihari/fit/decoder"
	"github.com/muktihari/fit/profile/filedef"
	"github.com/muktihari/fit/profile/mesgdef"
	"github.com/muktihari/fit/profile/typedef"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
)

var hrefRE = regexp.MustCompile(`href="(/s/[^"]+)"`)

func TestSharePage(t *testing.T) {
	t.Parallel()
	h := newBrowserAPI(t, nil)
	tr := h.plannedTrip(t, "ann", hostileTitle, 0, true)
	riding := 0
	for _, st := range tr.state.Stages {
		if !st.RestDay {
			riding++
		}
	}
	require.Greater(t, riding, 2)

	t.Run("the share answer's gpxUrl and fitUrl download what they name: a track and a lap per day", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "https://roadbook.test/s/"+tr.code+".gpx", tr.share.GpxUrl)
		require.Equal(t, "https://roadbook.test/s/"+tr.code+".fit", tr.share.FitUrl)
		for _, u := range []string{tr.share.GpxUrl, tr.share.FitUrl, "https://roadbook.test/s/" + tr.code + "/trip.gpx", "https://roadbook.test/s/" + tr.code + "/trip.fit"} {
			path := strings.TrimPrefix(u, "https://roadbook.test")
			resp, body := h.get(t, path)
			require.Equal(t, http.StatusOK, resp.StatusCode, path)
			if strings.HasSuffix(path, ".gpx") {
				require.Equal(t, "application/gpx+xml", resp.Header.Get("Content-Type"))
				var g struct {
					Trks []struct {
						Name string `xml:"name"`
					} `xml:"trk"`
					Wpts []struct {
						Type string `xml:"type"`
					} `xml:"wpt"`
				}
				require.NoError(t, xml.Unmarshal([]byte(body), &g))
				require.Len(t, g.Trks, riding, path)
				require.True(t, strings.HasPrefix(g.Trks[1].Name, "Day 2"), g.Trks[1].Name)
				ends := 0
				for _, w := range g.Wpts {
					if w.Type == "day_end" {
						ends++
					}
				}
				require.Equal(t, riding, ends, path)
				continue
			}
			require.Equal(t, "application/vnd.ant.fit", resp.Header.Get("Content-Type"))
			fit, err := decoder.New(bytes.NewReader([]byte(body))).Decode()
			require.NoError(t, err)
			lapCount, segmentEnds := 0, 0
			for i := range fit.Messages {
				switch fit.Messages[i].Num {
				case typedef.MesgNumLap:
					lapCount++
				case typedef.MesgNumCoursePoint:
					if mesgdef.NewCoursePoint(&fit.Messages[i]).Type == typedef.CoursePointSegmentEnd {
						segmentEnds++
					}
				}
			}
			require.Equal(t, riding, lapCount, path)
			require.Equal(t, riding, segmentEnds, path)
		}
		for _, bad := range []string{"/s/" + tr.code + "/trip.txt", "/s/" + tr.code + "/other.gpx", "/s/" + tr.code + "/trip"} {
			resp, _ := h.get(t, bad)
			require.Equal(t, http.StatusNotFound, resp.StatusCode, bad)
		}
	})

	t.Run("renders every day with its profile, the outline and the escaped title", func(t *testing.T) {
		t.Parallel()
		resp, page := h.get(t, "/s/"+tr.code)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
		require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
		require.Equal(t, "public, max-age=60", resp.Header.Get("Cache-Control"))
		csp := resp.Header.Get("Content-Security-Policy")
		require.Contains(t, csp, "default-src 'none'")
		require.Contains(t, csp, "script-src 'self';")
		require.NotContains(t, csp, "unsafe-inline", "the one <style> block is allowed by its hash")
		require.Regexp(t, `style-src 'sha256-[A-Za-z0-9+/=]{44}'`, csp)

		require.False(t, strings.Contains(page, "<script"), "no script at all, so nothing inline for the CSP to refuse")
		pageHas(t, page, `Oslo &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#34;Trondheim&#34;`)
		require.False(t, regexp.MustCompile(`(?i)(src|href|action)="[a-z]+:`).MatchString(page), "no third-party request: every URL is relative")
		require.False(t, strings.Contains(page, "url("), "no CSS fetch either")
		require.Equal(t, len(tr.state.Stages), strings.Count(page, `class="day card"`))
		for _, st := range tr.state.Stages {
			pageHas(t, page, `id="day-`+strconv.Itoa(st.Index+1)+`"`)
		}
		require.Equal(t, riding, strings.Count(page, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 500 140" class="profile"`), "one profile per riding day")
		require.Equal(t, 1, strings.Count(page, `class="profile" role="img" font-family="sans-serif" font-size="12" aria-labelledby="pt-t"`), "the whole trip's profile")
		require.Equal(t, 1, strings.Count(page, `class="outline"`))
		// One set of totals: the page states the days' sum, which the
		// text roadbook and the digest state too.
		pageHas(t, page, fmt.Sprintf("<b>%.1f km</b>", tr.state.Totals().DistanceM/1000))
		require.InDelta(t, 624.6, tr.state.Totals().DistanceM/1000, 0.1)
		pageHas(t, page, "@media print")
		pageHas(t, page, "@media (max-width:720px)")
	})

	t.Run("every download link serves a valid GPX or FIT without times or author", func(t *testing.T) {
		t.Parallel()
		_, page := h.get(t, "/s/"+tr.code)
		links := hrefRE.FindAllStringSubmatch(page, -1)
		require.Len(t, links, 2+2*riding)
		for _, l := range links {
			resp, body := h.get(t, l[1])
			require.Equal(t, http.StatusOK, resp.StatusCode, l[1])
			require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
			require.Contains(t, resp.Header.Get("Content-Disposition"), "attachment; filename=")
			switch {
			case strings.HasSuffix(l[1], ".gpx"):
				require.Equal(t, "application/gpx+xml", resp.Header.Get("Content-Type"))
				require.NotContains(t, body, "<time>")
				require.NotContains(t, body, "<author>")
				r, err := route.ReadGPX(strings.NewReader(body))
				require.NoError(t, err, l[1])
				require.Greater(t, len(r.Points), 10, l[1])
			case strings.HasSuffix(l[1], ".fit"):
				require.Equal(t, "application/vnd.ant.fit", resp.Header.Get("Content-Type"))
				fit, err := decoder.New(bytes.NewReader([]byte(body))).Decode()
				require.NoError(t, err, l[1])
				course := filedef.NewCourse(fit.Messages...)
				require.Greater(t, len(course.Records), 10, l[1])
			default:
				t.Fatalf("unexpected link %s", l[1])
			}
		}
	})

	t.Run("a day download matches the day", func(t *testing.T) {
		t.Parallel()
		_, body := h.get(t, "/s/"+tr.code+"/stages/2.gpx")
		r, err := route.ReadGPX(strings.NewReader(body))
		require.NoError(t, err)
		require.InDelta(t, tr.state.Stages[1].DistanceM, route.Length(r.Points), tr.state.Stages[1].DistanceM*0.01)
	})

	t.Run("unknown, revoked and malformed codes get the same plain not-found page", func(t *testing.T) {
		t.Parallel()
		other := h.plannedTrip(t, "ann", "revoked trip", 0, true)
		before, _ := h.get(t, "/s/"+other.code)
		require.Equal(t, http.StatusOK, before.StatusCode)
		shares := roadbookv1connect.NewShareServiceClient(h.http, h.url, withToken(h.token(t, "ann")))
		_, err := shares.UnshareTrip(context.Background(), connect.NewRequest(&roadbookv1.UnshareTripRequest{TripId: other.id, Version: other.state.Version}))
		require.NoError(t, err)

		r1, revoked := h.get(t, "/s/"+other.code)
		r2, unknown := h.get(t, "/s/AAAAAAAA")
		r3, malformed := h.get(t, "/s/%3Cb%3E")
		r4, day := h.get(t, "/s/"+other.code+"/stages/1.gpx")
		r5, file := h.get(t, "/s/"+tr.code+".exe")
		r6, noDay := h.get(t, "/s/"+tr.code+"/stages/99.gpx")
		for _, r := range []*http.Response{r1, r2, r3, r4, r5, r6} {
			require.Equal(t, http.StatusNotFound, r.StatusCode)
			require.Equal(t, "no-store", r.Header.Get("Cache-Control"))
			require.Equal(t, "text/html; charset=utf-8", r.Header.Get("Content-Type"))
		}
		require.Contains(t, revoked, "<h1>Not found</h1>")
		for _, b := range []string{unknown, malformed, day, file, noDay} {
			require.Equal(t, revoked, b)
		}
		require.NotContains(t, revoked, "revoked trip")
	})
}

func TestSharePageWeight(t *testing.T) {
	t.Parallel()
	h := newBrowserAPI(t, nil)
	tr := h.plannedTrip(t, "ann", "Thirty days to Trondheim", 30, true)
	require.Len(t, tr.state.Stages, 30)
	resp, page := h.get(t, "/s/"+tr.code)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 30, strings.Count(page, `class="day card"`))
	pageHas(t, page, "Tue 1 Jul 2031")
	t.Logf("30-day share page: %d bytes of HTML+SVG", len(page))
	require.LessOrEqual(t, len(page), 300_000, "page weight budget")
}

func TestSharePageRateLimit(t *testing.T) {
	t.Parallel()
	h := newBrowserAPI(t, func(c *apiserver.Config) {
		c.RateLimits = apiserver.DefaultRateLimits()
		c.RateLimits.Public = apiserver.RateLimit{N: 3, Window: time.Hour}
	})
	tr := h.plannedTrip(t, "ann", "limited", 0, true)
	for i := range 3 {
		resp, _ := h.get(t, "/s/"+tr.code+"/stages/1.fit")
		require.Equal(t, http.StatusOK, resp.StatusCode, "call %d", i+1)
	}
	resp, body := h.get(t, "/s/"+tr.code)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	require.Contains(t, body, "Too many requests")
	// The page and the public RPCs share one per-address count.
	public := roadbookv1connect.NewPublicShareServiceClient(h.http, h.url)
	_, err := public.GetSharedTrip(context.Background(), connect.NewRequest(&roadbookv1.GetSharedTripRequest{Code: tr.code}))
	require.Equal(t, connect.CodeResourceExhausted, connect.CodeOf(err))
	var ce *connect.Error
	require.ErrorAs(t, err, &ce)
	secs, perr := strconv.Atoi(ce.Meta().Get("Retry-After"))
	require.NoError(t, perr, "a 429 from the RPCs carries Retry-After too: %v", ce.Meta())
	require.Positive(t, secs)
	require.LessOrEqual(t, secs, 3600)
}

func TestTripProfileSVG(t *testing.T) {
	t.Parallel()
	h := newBrowserAPI(t, nil)
	tr := h.plannedTrip(t, "ann", hostileTitle, 0, false)
	path := "/trips/" + tr.id + "/profile.svg"

	t.Run("the owner gets a well-formed SVG of the whole trip and of one day", func(t *testing.T) {
		t.Parallel()
		for _, p := range []string{path, path + "?day=2"} {
			resp, body := h.get(t, p, "Authorization", "Bearer "+h.token(t, "ann", "trips:read"))
			require.Equal(t, http.StatusOK, resp.StatusCode, p)
			require.Equal(t, "image/svg+xml", resp.Header.Get("Content-Type"))
			require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
			require.Equal(t, "private, no-cache", resp.Header.Get("Cache-Control"))
			require.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
			require.NotContains(t, body, "<script")
			require.Contains(t, body, "&lt;script&gt;")
			dec := xml.NewDecoder(strings.NewReader(body))
			paths := 0
			for {
				tok, err := dec.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
					paths++
				}
			}
			require.GreaterOrEqual(t, paths, 3, "axis, area and line")
		}
		_, whole := h.get(t, path, "Authorization", "Bearer "+h.token(t, "ann"))
		require.Equal(t, len(tr.state.Stages)-1, strings.Count(whole, `stroke-dasharray="3 3"`), "a guide at every day boundary")
	})

	t.Run("another user's trip and a missing trip answer the same 404", func(t *testing.T) {
		t.Parallel()
		eve := "Bearer " + h.token(t, "eve")
		r1, b1 := h.get(t, path, "Authorization", eve)
		r2, b2 := h.get(t, "/trips/"+uuid.NewString()+"/profile.svg", "Authorization", eve)
		require.Equal(t, http.StatusNotFound, r1.StatusCode)
		require.Equal(t, r1.StatusCode, r2.StatusCode)
		require.Equal(t, b1, b2)
	})

	t.Run("refuses a missing token, a token without trips:read and a bad day", func(t *testing.T) {
		t.Parallel()
		r, _ := h.get(t, path)
		require.Equal(t, http.StatusUnauthorized, r.StatusCode)
		require.Equal(t, "Bearer", r.Header.Get("WWW-Authenticate"))
		r, _ = h.get(t, path, "Authorization", "Bearer "+h.token(t, "ann", "trips:write"))
		require.Equal(t, http.StatusForbidden, r.StatusCode)
		r, body := h.get(t, path+"?day=99", "Authorization", "Bearer "+h.token(t, "ann"))
		require.Equal(t, http.StatusBadRequest, r.StatusCode)
		require.Contains(t, body, "day: must be a day number from 1 to")
		r, body = h.get(t, "/trips/not-a-uuid/profile.svg", "Authorization", "Bearer "+h.token(t, "ann"))
		require.Equal(t, http.StatusBadRequest, r.StatusCode)
		require.Contains(t, body, "trip id: must be a UUID")
	})
}

// pageHas is require.Contains without printing a 100 KB page on failure.
func pageHas(t *testing.T, page, want string) {
	t.Helper()
	require.True(t, strings.Contains(page, want), "the page lacks %q", want)
}

func TestSharePageRateLimitBehindProxy(t *testing.T) {
	t.Parallel()
	// Every request comes from 127.0.0.1, the "ingress"; the client
	// addresses are what it appended to X-Forwarded-For.
	h := newBrowserAPI(t, func(c *apiserver.Config) {
		c.RateLimits = apiserver.DefaultRateLimits()
		c.RateLimits.Public = apiserver.RateLimit{N: 2, Window: time.Hour}
		c.TrustedProxyHops = 1
	})
	tr := h.plannedTrip(t, "ann", "behind a proxy", 0, true)
	status := func(xff string) int {
		resp, _ := h.get(t, "/s/"+tr.code, "X-Forwarded-For", xff)
		return resp.StatusCode
	}

	t.Run("a client spoofing new left-most entries stays in its own bucket", func(t *testing.T) {
		require.Equal(t, http.StatusOK, status("198.51.100.1, 203.0.113.7"))
		require.Equal(t, http.StatusOK, status("198.51.100.2, 203.0.113.7"))
		require.Equal(t, http.StatusTooManyRequests, status("198.51.100.3, 203.0.113.7"))
		require.Equal(t, http.StatusTooManyRequests, status("203.0.113.8, 203.0.113.7"))
	})
	t.Run("another client behind the same proxy has a bucket of its own", func(t *testing.T) {
		require.Equal(t, http.StatusOK, status("203.0.113.99"))
		public := roadbookv1connect.NewPublicShareServiceClient(h.http, h.url)
		req := connect.NewRequest(&roadbookv1.GetSharedTripRequest{Code: tr.code})
		req.Header().Set("X-Forwarded-For", "203.0.113.7, 203.0.113.99")
		_, err := public.GetSharedTrip(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, http.StatusTooManyRequests, status("203.0.113.99"))
	})
}
