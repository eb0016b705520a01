package geocode_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/geocoding"
	"github.com/roadbook/roadbook/services/worker/internal/gazetteer"
	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/testkit"
)

func startResponder(t *testing.T, g geocode.Geocoder) *nats.Conn {
	t.Helper()
	s, _ := testkit.NATS(t)
	r, err := geocode.NewResponder(connect(t, s), g, geocode.ResponderOptions{})
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, r.Stop()) })
	return connect(t, s)
}

func request(t *testing.T, nc *nats.Conn, subject string, req proto.Message) *nats.Msg {
	t.Helper()
	b, err := proto.Marshal(req)
	require.NoError(t, err)
	m, err := nc.Request(subject, b, 10*time.Second)
	require.NoError(t, err)
	return m
}

func TestResponderWithGazetteer(t *testing.T) {
	t.Parallel()
	g, err := gazetteer.Load()
	require.NoError(t, err)
	nc := startResponder(t, g)

	t.Run("a search answers places in protobuf", func(t *testing.T) {
		t.Parallel()
		m := request(t, nc, geocoding.SubjectSearch, &roadbookv1.SearchPlacesRequest{Query: "sao pa", Limit: 3})
		require.Empty(t, m.Header.Get(geocoding.HeaderError))
		var resp roadbookv1.SearchPlacesResponse
		require.NoError(t, proto.Unmarshal(m.Data, &resp))
		require.Len(t, resp.GetPlaces(), 3)
		require.Equal(t, "São Paulo", resp.GetPlaces()[0].GetName())
		require.InDelta(t, -23.5475, resp.GetPlaces()[0].GetLocation().GetLat(), 1e-4)
	})

	t.Run("limit 0 means five", func(t *testing.T) {
		t.Parallel()
		m := request(t, nc, geocoding.SubjectSearch, &roadbookv1.SearchPlacesRequest{Query: "san"})
		var resp roadbookv1.SearchPlacesResponse
		require.NoError(t, proto.Unmarshal(m.Data, &resp))
		require.Len(t, resp.GetPlaces(), 5)
	})

	t.Run("a reverse lookup names the place", func(t *testing.T) {
		t.Parallel()
		m := request(t, nc, geocoding.SubjectReverse, &roadbookv1.ReversePlaceRequest{Location: &roadbookv1.LatLon{Lat: 63.43, Lon: 10.39}})
		var resp roadbookv1.ReversePlaceResponse
		require.NoError(t, proto.Unmarshal(m.Data, &resp))
		require.Equal(t, "Trondheim", resp.GetPlace().GetName())
	})

	t.Run("no place is an empty answer, not an error", func(t *testing.T) {
		t.Parallel()
		m := request(t, nc, geocoding.SubjectReverse, &roadbookv1.ReversePlaceRequest{Location: &roadbookv1.LatLon{Lat: -40, Lon: -130}})
		require.Empty(t, m.Header.Get(geocoding.HeaderError))
		var resp roadbookv1.ReversePlaceResponse
		require.NoError(t, proto.Unmarshal(m.Data, &resp))
		require.Nil(t, resp.GetPlace())
	})

	t.Run("bad requests are invalid_argument with a message", func(t *testing.T) {
		t.Parallel()
		for name, tc := range map[string]struct {
			subject string
			msg     proto.Message
		}{
			"a one-letter query":      {geocoding.SubjectSearch, &roadbookv1.SearchPlacesRequest{Query: "x"}},
			"a limit above ten":       {geocoding.SubjectSearch, &roadbookv1.SearchPlacesRequest{Query: "Oslo", Limit: 11}},
			"a missing location":      {geocoding.SubjectReverse, &roadbookv1.ReversePlaceRequest{}},
			"a latitude out of range": {geocoding.SubjectReverse, &roadbookv1.ReversePlaceRequest{Location: &roadbookv1.LatLon{Lat: 95}}},
		} {
			m := request(t, nc, tc.subject, tc.msg)
			require.Equal(t, geocoding.CodeInvalidArgument, geocoding.Read(m.Header).Err, name)
			require.NotEmpty(t, m.Data, name)
		}
		m, err := nc.Request(geocoding.SubjectSearch, []byte{0xff, 0xff}, 5*time.Second)
		require.NoError(t, err)
		require.Equal(t, geocoding.CodeInvalidArgument, geocoding.Read(m.Header).Err, "a body that is not protobuf")
	})
}

func TestReplyError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		code geocoding.Code
	}{
		{"invalid arguments are invalid_argument", geocode.ErrInvalidArgument, geocoding.CodeInvalidArgument},
		{"rate limits are rate_limited", geocode.ErrRateLimited, geocoding.CodeRateLimited},
		{"a wait that ran out is rate_limited", context.DeadlineExceeded, geocoding.CodeRateLimited},
		{"an outage is unavailable", geocode.ErrUnavailable, geocoding.CodeUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, after := geocode.ReplyError(tc.err)
			require.Equal(t, tc.code, code)
			if code != geocoding.CodeInvalidArgument {
				require.GreaterOrEqual(t, after, time.Second)
			}
		})
	}
}
