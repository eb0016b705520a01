package nominatim_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/services/worker/internal/geocode/nominatim"
	"github.com/roadbook/roadbook/services/worker/internal/geocode/nominatim/nominatimtest"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

const testUA = "Roadbook-test/1.0 (+https://github.com/roadbook/roadbook; tests@roadbook.invalid)"

// newClient builds the client the way production does, on the fake, paced
// at nominatim.PaceInterval in-process.
func newClient(t *testing.T, fake *nominatimtest.Server, opts ...upstream.Option) *nominatim.Client {
	t.Helper()
	pacer, err := upstream.NewLocalPacer(nominatim.PaceInterval)
	require.NoError(t, err)
	cache, err := upstream.NewLRUCache(1000, nominatim.CacheTTL)
	require.NoError(t, err)
	up, err := upstream.New("nominatim", append([]upstream.Option{
		upstream.WithBaseURL(fake.URL), upstream.WithUserAgent(testUA),
		upstream.WithPacer(pacer), upstream.WithCache(cache),
	}, opts...)...)
	require.NoError(t, err)
	c, err := nominatim.New(up)
	require.NoError(t, err)
	return c
}

func TestSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a recorded search returns its five places with numeric coordinates", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		got, err := newClient(t, fake).Search(ctx, "1 Place des Palais 1000 bruxelles", 5)
		require.NoError(t, err)
		require.Len(t, got, 5)
		require.Equal(t, "Palais Royal - Koninklijk Paleis", got[0].Name)
		require.Equal(t, "attraction", got[0].Type)
		require.InDelta(t, 50.8419916, got[0].Lat, 1e-7)
		require.InDelta(t, 4.3619888303182375, got[0].Lon, 1e-9)
		require.Contains(t, got[0].DisplayName, "Bruxelles")
		reqs := fake.Requests()
		require.Len(t, reqs, 1)
		require.Contains(t, reqs[0].Query, "format=jsonv2")
		require.Contains(t, reqs[0].Query, "addressdetails=1")
		require.Contains(t, reqs[0].Query, "limit=5")
	})

	t.Run("a postcode hit without name is named by its postcode", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		got, err := newClient(t, fake).Search(ctx, "90210,United States", 1)
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, "90210", got[0].Name)
		require.Equal(t, "postcode", got[0].Type)
		require.Equal(t, "Beverly Hills, California, 90210, United States", got[0].DisplayName)
	})

	t.Run("no results is an empty list", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		got, err := newClient(t, fake).Search(ctx, "nowhere at all", 3)
		require.NoError(t, err)
		require.Empty(t, got)
	})

	t.Run("a repeated search is answered from the cache", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		c := newClient(t, fake)
		for range 3 {
			got, err := c.Search(ctx, "Elbphilharmonie, Platz der deutschen Einheit 1, Hamburg", 5)
			require.NoError(t, err)
			require.Equal(t, "Elbphilharmonie", got[0].Name)
		}
		require.Len(t, fake.Requests(), 1)
	})

	t.Run("identical concurrent searches send one request", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		c := newClient(t, fake)
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				_, err := c.Search(ctx, "Elbphilharmonie, Platz der deutschen Einheit 1, Hamburg", 5)
				require.NoError(t, err)
			})
		}
		wg.Wait()
		require.Len(t, fake.Requests(), 1)
	})

	t.Run("bad arguments are refused before any request", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		c := newClient(t, fake)
		_, err := c.Search(ctx, "x", 5)
		require.ErrorIs(t, err, geocode.ErrInvalidArgument)
		_, err = c.Search(ctx, "Oslo", 11)
		require.ErrorIs(t, err, geocode.ErrInvalidArgument)
		require.Empty(t, fake.Requests())
	})
}

func TestReverse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the Paris recording names the city, not the café", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		p, err := newClient(t, fake).Reverse(ctx, 48.86, 2.35)
		require.NoError(t, err)
		require.Equal(t, "Paris", p.Name)
		require.InDelta(t, 48.8604416, p.Lat, 1e-7)
	})

	t.Run("a null name still finds the city in the address", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		p, err := newClient(t, fake).Reverse(ctx, 35.685939, 139.811695)
		require.NoError(t, err)
		require.Equal(t, "Koto", p.Name)
	})

	t.Run("Unable to geocode with HTTP 200 is no place", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		_, err := newClient(t, fake).Reverse(ctx, 0, -160)
		require.ErrorIs(t, err, geocode.ErrNoPlace)
	})
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the fake blocks a generic User-Agent with its HTML 403 page", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		res, err := http.Get(fake.URL + "/search?q=Oslo&format=jsonv2")
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusForbidden, res.StatusCode)
		require.Equal(t, "text/html", res.Header.Get("Content-Type"))
	})

	t.Run("the fake answers 429 HTML above 1 request per second and the client reports rate limited", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		// A client paced far too fast for the policy.
		pacer, err := upstream.NewLocalPacer(10 * time.Millisecond)
		require.NoError(t, err)
		c := newClient(t, fake, upstream.WithPacer(pacer))
		_, err = c.Search(ctx, "first query", 1)
		require.NoError(t, err)
		_, err = c.Search(ctx, "second query", 1)
		require.ErrorIs(t, err, geocode.ErrRateLimited)
		require.ErrorIs(t, err, upstream.ErrRateLimited, "the upstream cause stays wrapped")
		_, err = c.Search(ctx, "third query", 1)
		require.ErrorIs(t, err, geocode.ErrUnavailable, "the 429 opened the breaker")
		require.Positive(t, geocode.RetryAfter(err))
		require.Len(t, fake.Requests(), 2, "no request while the breaker is open")
	})

	t.Run("a 400 JSON error for bad parameters is an invalid argument, not JSON data", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		req, err := http.NewRequest(http.MethodGet, fake.URL+"/search?q=Oslo&format=jsonv2&limit=99", nil)
		require.NoError(t, err)
		req.Header.Set("User-Agent", testUA)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusBadRequest, res.StatusCode)
	})

	t.Run("a 503 HTML page is unavailable", func(t *testing.T) {
		t.Parallel()
		fake := nominatimtest.New(nil)
		defer fake.Close()
		fake.StartOutage(http.StatusServiceUnavailable)
		_, err := newClient(t, fake).Reverse(ctx, 60, 10)
		require.ErrorIs(t, err, geocode.ErrUnavailable)
	})
}
