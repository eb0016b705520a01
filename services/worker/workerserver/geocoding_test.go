package workerserver_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/services/api/auth"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
)

func TestGeocodingThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := start(t, nil) // the default geocoder: the gazetteer
	nc, err := pipelinetest.Connect(e.nats.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	require.Eventually(t, e.srv.Ready, 30*time.Second, 10*time.Millisecond)

	users, err := auth.NewHS256Issuer("dev", []byte(strings.Repeat("u", 32)), "roadbook-dev")
	require.NoError(t, err)
	verifier, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(users.Key())})
	require.NoError(t, err)
	api, err := apiserver.New(apiserver.Config{Store: e.store, NATS: nc, Verifier: verifier, PublicBaseURL: "https://roadbook.test",
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	tok, err := users.Mint(auth.Claims{Issuer: "roadbook-dev", Subject: "ann", Audience: []string{auth.DefaultAudience},
		ExpiresAt: time.Now().Add(time.Hour), Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	client := roadbookv1connect.NewGeocodingServiceClient(srv.Client(), srv.URL)

	t.Run("SearchPlaces answers from the gazetteer, accent-insensitively", func(t *testing.T) {
		req := connect.NewRequest(&roadbookv1.SearchPlacesRequest{Query: "trondhe", Limit: 3})
		req.Header().Set("Authorization", "Bearer "+tok)
		res, err := client.SearchPlaces(context.Background(), req)
		require.NoError(t, err)
		require.NotEmpty(t, res.Msg.GetPlaces())
		require.Equal(t, "Trondheim", res.Msg.GetPlaces()[0].GetName())
		require.InDelta(t, 63.43, res.Msg.GetPlaces()[0].GetLocation().GetLat(), 0.1)
	})

	t.Run("ReversePlace names the place at a point", func(t *testing.T) {
		req := connect.NewRequest(&roadbookv1.ReversePlaceRequest{Location: &roadbookv1.LatLon{Lat: 59.913, Lon: 10.752}})
		req.Header().Set("Authorization", "Bearer "+tok)
		res, err := client.ReversePlace(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, "Oslo", res.Msg.GetPlace().GetName())
	})

	t.Run("a gazetteer answer is not a cache hit, so the API counts it", func(t *testing.T) {
		body, err := proto.Marshal(&roadbookv1.SearchPlacesRequest{Query: "Hamar", Limit: 1})
		require.NoError(t, err)
		msg, err := nc.RequestMsg(&nats.Msg{Subject: "roadbook.geocode.search", Data: body, Header: nats.Header{}}, 10*time.Second)
		require.NoError(t, err)
		require.Empty(t, msg.Header.Get("Roadbook-Error"))
		require.Equal(t, "miss", msg.Header.Get("Roadbook-Cache"))
	})
}
