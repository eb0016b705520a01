package provider_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/worker/internal/provider"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

func TestOSRMStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	from, wpt := route.Point{Lat: 59.9, Lon: 10.75}, route.Point{Lat: 59.91, Lon: 10.76}

	t.Run("NoRoute answered with HTTP 400, as OSRM does, is ErrNoRoute", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"code":"NoRoute","message":"Impossible route between points"}`))
		}))
		t.Cleanup(srv.Close)
		o, err := provider.NewOSRM(client(t, "osrm", srv.URL))
		require.NoError(t, err)
		_, routed, err := provider.Detour(ctx, o, from, wpt)
		require.ErrorIs(t, err, provider.ErrNoRoute)
		require.ErrorIs(t, err, upstream.ErrRejected, "the upstream cause stays visible")
		require.False(t, routed)
	})

	t.Run("an OSRM that is down is unavailable, not a missing route", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.WriteHeader(http.StatusBadGateway)
		}))
		t.Cleanup(srv.Close)
		o, err := provider.NewOSRM(client(t, "osrm", srv.URL))
		require.NoError(t, err)
		_, _, err = provider.Detour(ctx, o, from, wpt)
		require.ErrorIs(t, err, upstream.ErrUnavailable)
		require.NotErrorIs(t, err, provider.ErrNoRoute)
		require.Positive(t, hits.Load())
	})
}
