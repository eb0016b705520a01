package fetch_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/fetch"
)

const testUA = "Roadbook-test/1.0 (tests@roadbook.invalid)"

// source is a local server standing in for a route platform; it counts
// connections (not just requests) so tests can prove nothing reached it.
type source struct {
	srv   *httptest.Server
	addr  netip.AddrPort
	conns atomic.Int32
	hits  atomic.Int32
}

func newSource(t *testing.T, h http.HandlerFunc) *source {
	t.Helper()
	s := &source{}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	s.addr = s.srv.Listener.Addr().(*net.TCPAddr).AddrPort()
	return s
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func newFetcher(t *testing.T, cfg fetch.Config, opts ...fetch.Option) *fetch.Fetcher {
	t.Helper()
	if cfg.UserAgent == "" {
		cfg.UserAgent = testUA
	}
	cfg.RetryBackoff = time.Millisecond
	f, err := fetch.New(cfg, opts...)
	require.NoError(t, err)
	return f
}

// platform serves the documented payload shapes at the documented paths.
func platform(t *testing.T) *source {
	tour := readTestdata(t, "tour_1234567890.html")
	collection := readTestdata(t, "collection_987654.html")
	rwgps := readTestdata(t, "route_12345.json")
	gpx := readTestdata(t, "multi_gpxstudio_with_tracks_and_segments.gpx")
	return newSource(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != testUA {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/tour/1234567890", "/tour/1234567891", "/tour/1234567892":
			_, _ = w.Write(tour)
		case "/collection/987654":
			_, _ = w.Write(collection)
		case "/routes/12345.json":
			_, _ = w.Write(rwgps)
		case "/routes/777/export_gpx":
			w.Header().Set("Content-Type", "application/gpx+xml")
			_, _ = w.Write(gpx)
		case "/routes/12346.json":
			_, _ = w.Write([]byte(`{"id":12346,"name":"empty","track_points":[]}`))
		case "/routes/778/export_gpx":
			_, _ = w.Write([]byte(`<?xml version="1.0"?><gpx version="1.1" creator="StravaGPX"><trk><name>x</name></trk></gpx>`))
		case "/tour/403":
			w.WriteHeader(http.StatusForbidden)
		default:
			http.NotFound(w, r)
		}
	})
}

func platformConfig(s *source) fetch.Config {
	return fetch.Config{KomootBaseURL: s.srv.URL, StravaBaseURL: s.srv.URL, RideWithGPSBaseURL: s.srv.URL}
}

func TestFetch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("reads a Komoot tour from its page, ignoring the URL's host, and caches it", func(t *testing.T) {
		t.Parallel()
		p := platform(t)
		elsewhere := newSource(t, func(http.ResponseWriter, *http.Request) {})
		f := newFetcher(t, platformConfig(p), fetch.AllowTestServer(p.addr), fetch.AllowTestServer(elsewhere.addr))
		src := trip.Source{Kind: trip.SourceKomootTour, ID: "1234567890", URL: elsewhere.srv.URL + "/tour/1234567890"}
		r, err := f.Fetch(ctx, src)
		require.NoError(t, err)
		require.Len(t, r.Points, 400)
		require.Equal(t, "Oslo → Mjøsa: «første etappe»", r.Title)
		require.True(t, r.ElevationKnown)
		again, err := f.Fetch(ctx, src)
		require.NoError(t, err)
		require.Equal(t, route.EncodePoints(r.Points), route.EncodePoints(again.Points), "the cached copy holds the same canonical points")
		require.Equal(t, int32(1), p.hits.Load(), "the second fetch is served from the cache")
		require.Zero(t, elsewhere.conns.Load(), "the user's URL never chooses the host")
	})

	t.Run("reads a Komoot collection as one fetch per distinct tour", func(t *testing.T) {
		t.Parallel()
		p := platform(t)
		f := newFetcher(t, platformConfig(p), fetch.AllowTestServer(p.addr))
		src := trip.Source{Kind: trip.SourceKomootCollection, ID: "987654"}
		tours, err := f.FetchTours(ctx, src)
		require.NoError(t, err)
		require.Len(t, tours, 3)
		require.Equal(t, []string{"1234567890", "1234567891", "1234567892"}, []string{tours[0].ID, tours[1].ID, tours[2].ID})
		for _, tr := range tours {
			require.Len(t, tr.Route.Points, 400)
		}
		whole, err := f.Fetch(ctx, src)
		require.NoError(t, err)
		require.Equal(t, "Oslo to Trondheim in 7 days", whole.Title)
		require.Len(t, whole.Points, 1200)
	})

	t.Run("reads a Strava route from export_gpx", func(t *testing.T) {
		t.Parallel()
		p := platform(t)
		f := newFetcher(t, platformConfig(p), fetch.AllowTestServer(p.addr))
		r, err := f.Fetch(ctx, trip.Source{Kind: trip.SourceStravaRoute, ID: "777"})
		require.NoError(t, err)
		require.NotEmpty(t, r.Points)
	})

	t.Run("reads a RideWithGPS route from its JSON", func(t *testing.T) {
		t.Parallel()
		p := platform(t)
		f := newFetcher(t, platformConfig(p), fetch.AllowTestServer(p.addr))
		r, err := f.Fetch(ctx, trip.Source{Kind: trip.SourceRideWithGPSRoute, ID: "12345"})
		require.NoError(t, err)
		require.Len(t, r.Points, 400)
		require.InDelta(t, 59.906353, r.Points[0].Lat, 1e-9)
	})

	t.Run("404 and 403 fail at once with route_fetch_failed", func(t *testing.T) {
		t.Parallel()
		p := platform(t)
		f := newFetcher(t, platformConfig(p), fetch.AllowTestServer(p.addr))
		for _, src := range []trip.Source{{Kind: trip.SourceKomootTour, ID: "404"}, {Kind: trip.SourceKomootTour, ID: "403"}} {
			before := p.hits.Load()
			_, err := f.Fetch(ctx, src)
			require.ErrorIs(t, err, fetch.ErrRouteFetchFailed)
			var fe *fetch.Error
			require.ErrorAs(t, err, &fe)
			require.Equal(t, trip.ImportRouteFetchFailed, fe.ImportCode())
			require.False(t, fe.Retryable())
			require.Contains(t, []int{403, 404}, fe.HTTPStatus())
			require.Equal(t, before+1, p.hits.Load(), "no retry on %s", src.ID)
		}
	})

	t.Run("an empty route is empty_route", func(t *testing.T) {
		t.Parallel()
		p := platform(t)
		f := newFetcher(t, platformConfig(p), fetch.AllowTestServer(p.addr))
		for _, src := range []trip.Source{{Kind: trip.SourceRideWithGPSRoute, ID: "12346"}, {Kind: trip.SourceStravaRoute, ID: "778"}} {
			_, err := f.Fetch(ctx, src)
			require.ErrorIs(t, err, fetch.ErrEmptyRoute, src.ID)
			var fe *fetch.Error
			require.ErrorAs(t, err, &fe)
			require.Equal(t, trip.ImportEmptyRoute, fe.ImportCode())
		}
	})

	t.Run("transient failures are retried twice, then reported retryable", func(t *testing.T) {
		t.Parallel()
		var fails atomic.Int32
		fails.Store(2)
		tour := readTestdata(t, "tour_1234567890.html")
		s := newSource(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/tour/1" && fails.Add(-1) >= 0 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			if r.URL.Path == "/tour/2" {
				w.WriteHeader(http.StatusBadGateway)
				return
			}
			_, _ = w.Write(tour)
		})
		f := newFetcher(t, fetch.Config{KomootBaseURL: s.srv.URL}, fetch.AllowTestServer(s.addr))
		_, err := f.Fetch(ctx, trip.Source{Kind: trip.SourceKomootTour, ID: "1"})
		require.NoError(t, err)
		require.Equal(t, int32(3), s.hits.Load())
		_, err = f.Fetch(ctx, trip.Source{Kind: trip.SourceKomootTour, ID: "2"})
		require.ErrorIs(t, err, fetch.ErrSourceUnavailable)
		var fe *fetch.Error
		require.ErrorAs(t, err, &fe)
		require.True(t, fe.Retryable())
		require.Equal(t, trip.ImportSourceUnavailable, fe.ImportCode())
		require.Equal(t, int32(6), s.hits.Load())
	})

	t.Run("an id that is not a number is never requested", func(t *testing.T) {
		t.Parallel()
		p := platform(t)
		f := newFetcher(t, platformConfig(p), fetch.AllowTestServer(p.addr))
		for _, id := range []string{"", "12/../../admin", "1?x=2", "abc", "@evil.example"} {
			_, err := f.Fetch(ctx, trip.Source{Kind: trip.SourceKomootTour, ID: id})
			require.ErrorIs(t, err, fetch.ErrUnsupportedSource, id)
		}
		_, err := f.Fetch(ctx, trip.Source{Kind: "gpx_upload", ID: "1"})
		require.ErrorIs(t, err, fetch.ErrUnsupportedSource)
		require.Zero(t, p.conns.Load())
	})

	t.Run("a cancelled context is returned as is", func(t *testing.T) {
		t.Parallel()
		p := platform(t)
		f := newFetcher(t, platformConfig(p), fetch.AllowTestServer(p.addr))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := f.Fetch(cctx, trip.Source{Kind: trip.SourceKomootTour, ID: "1234567890"})
		require.ErrorIs(t, err, context.Canceled)
		var fe *fetch.Error
		require.False(t, errors.As(err, &fe))
	})

	t.Run("a configuration without a User-Agent is refused", func(t *testing.T) {
		t.Parallel()
		_, err := fetch.New(fetch.Config{})
		require.Error(t, err)
		require.True(t, strings.Contains(err.Error(), "User-Agent"))
	})
}
