package stack_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/testkit/stack"
)

func TestGeocodingThroughTheAPI(t *testing.T) {
	t.Parallel()
	st := stack.New(t, stack.Options{Worker: true, NoMCP: true}) // the default geocoder: the gazetteer
	require.Eventually(t, st.Worker.Ready, 30*time.Second, 10*time.Millisecond)
	tok, err := st.APIToken("ann")
	require.NoError(t, err)
	nc := st.Conn
	client := roadbookv1connect.NewGeocodingServiceClient(http.DefaultClient, st.APIURL)

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
