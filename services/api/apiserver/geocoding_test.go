package apiserver_test

import (
	"context"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/geocoding"
)

// protocolResponder answers the geocoding subjects in the wire format of the
// contract (proto/geocoding: binary protobuf bodies, its reply headers). It is not the worker's geocoder: these
// tests pin the API's side of the protocol against a real NATS server. A
// request it cannot decode is answered invalid_argument, so the calling
// test fails on its own goroutine.
func protocolResponder(t *testing.T, nc *nats.Conn, answer func(subject string, body []byte) *nats.Msg) {
	t.Helper()
	for _, subject := range []string{geocoding.SubjectSearch, geocoding.SubjectReverse} {
		sub, err := nc.Subscribe(subject, func(m *nats.Msg) {
			reply := answer(m.Subject, m.Data)
			reply.Subject = m.Reply
			_ = nc.PublishMsg(reply)
		})
		require.NoError(t, err)
		t.Cleanup(func() { _ = sub.Unsubscribe() })
	}
	require.NoError(t, nc.Flush())
}

func TestGeocodingServiceProtocol(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("search and reverse travel as protobuf over NATS request-reply", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		protocolResponder(t, h.nc, func(subject string, body []byte) *nats.Msg {
			var out proto.Message
			switch subject {
			case geocoding.SubjectSearch:
				var in roadbookv1.SearchPlacesRequest
				if proto.Unmarshal(body, &in) != nil {
					return replyMsg(nil, geocoding.Reply{Err: geocoding.CodeInvalidArgument})
				}
				places := []*roadbookv1.Place{}
				for i := range int(in.Limit) {
					places = append(places, &roadbookv1.Place{Name: in.Query, DisplayName: in.Query + ", Norway", Type: "city",
						Location: &roadbookv1.LatLon{Lat: 63.43 + float64(i), Lon: 10.39}})
				}
				out = &roadbookv1.SearchPlacesResponse{Places: places}
			default:
				var in roadbookv1.ReversePlaceRequest
				if proto.Unmarshal(body, &in) != nil {
					return replyMsg(nil, geocoding.Reply{Err: geocoding.CodeInvalidArgument})
				}
				out = &roadbookv1.ReversePlaceResponse{Place: &roadbookv1.Place{Name: "Lillehammer", Location: in.Location}}
			}
			data, _ := proto.Marshal(out) // a failure shows as an empty answer
			return replyMsg(data, geocoding.Reply{})
		})
		c := h.as(t, "finder", nil)
		found, err := c.geo.SearchPlaces(ctx, connect.NewRequest(&roadbookv1.SearchPlacesRequest{Query: "Trondheim"}))
		require.NoError(t, err)
		require.Len(t, found.Msg.Places, 5, "the default limit is sent on")
		require.Equal(t, "Trondheim, Norway", found.Msg.Places[0].DisplayName)

		at := &roadbookv1.LatLon{Lat: 61.115, Lon: 10.466}
		rev, err := c.geo.ReversePlace(ctx, connect.NewRequest(&roadbookv1.ReversePlaceRequest{Location: at}))
		require.NoError(t, err)
		require.Equal(t, "Lillehammer", rev.Msg.Place.Name)
		require.InDelta(t, at.Lat, rev.Msg.Place.Location.Lat, 1e-12)
	})

	t.Run("the worker's error headers become the matching codes with a retry delay", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		code := make(chan string, 1)
		protocolResponder(t, h.nc, func(string, []byte) *nats.Msg {
			return replyMsg(nil, geocoding.Reply{Err: geocoding.Code(<-code), RetryAfter: 7 * time.Second})
		})
		c := h.as(t, "unlucky-finder", nil)
		for _, tc := range []struct {
			header string
			want   connect.Code
			info   roadbookv1.Code
		}{
			{"rate_limited", connect.CodeResourceExhausted, roadbookv1.Code_CODE_RATE_LIMITED},
			{"unavailable", connect.CodeUnavailable, roadbookv1.Code_CODE_UNAVAILABLE},
			{"invalid_argument", connect.CodeInvalidArgument, roadbookv1.Code_CODE_INVALID_ARGUMENT},
		} {
			code <- tc.header
			_, err := c.geo.SearchPlaces(ctx, connect.NewRequest(&roadbookv1.SearchPlacesRequest{Query: "Bergen"}))
			require.Equal(t, tc.want, connect.CodeOf(err), tc.header)
			info := errorInfo(t, err)
			require.Equal(t, tc.info, info.Code, tc.header)
			if tc.header != "invalid_argument" {
				require.EqualValues(t, 7, info.RetryDelay.AsDuration().Seconds(), tc.header)
			}
		}
	})

	t.Run("no geocoder listening is unavailable, not a hang", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		_, err := h.as(t, "alone", nil).geo.ReversePlace(ctx, connect.NewRequest(&roadbookv1.ReversePlaceRequest{Location: &roadbookv1.LatLon{Lat: 1, Lon: 2}}))
		require.Equal(t, connect.CodeUnavailable, connect.CodeOf(err))
		require.Positive(t, errorInfo(t, err).RetryDelay.AsDuration())
	})
}

// replyMsg is a reply with body data and the headers of r.
func replyMsg(data []byte, r geocoding.Reply) *nats.Msg {
	m := &nats.Msg{Data: data, Header: nats.Header{}}
	r.Write(m.Header)
	return m
}
