package apiserver

import (
	"context"
	"errors"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/proto/geocoding"
)

// geocodingService implements roadbookv1connect.GeocodingServiceHandler by
// asking the worker's geocoder over NATS request-reply (the contract of
// package proto/geocoding).
type geocodingService struct{ *shared }

var _ roadbookv1connect.GeocodingServiceHandler = (*geocodingService)(nil)

// geocode sends in and decodes the reply into out. The call is refused when
// the caller's geocode window is full; it counts only when the worker says
// it was a cache miss (or says nothing).
func (c *shared) geocode(ctx context.Context, user, subject string, in, out proto.Message) error {
	if err := c.limits.peek(ctx, "geocode", user, c.cfg.RateLimits.Geocode); err != nil {
		return err
	}
	body, err := proto.Marshal(in)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.GeocodeTimeout)
	defer cancel()
	msg, err := c.cfg.NATS.RequestMsgWithContext(ctx, &nats.Msg{Subject: subject, Data: body, Header: nats.Header{}})
	switch {
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return &unavailableError{Message: "the geocoder is not answering; retry shortly", RetryAfter: 5 * time.Second}
	case err != nil:
		return err
	}
	reply := geocoding.Read(msg.Header)
	switch reply.Err {
	case "":
	case geocoding.CodeRateLimited:
		return &planner.RateLimitedError{RetryAfter: reply.RetryAfter}
	case geocoding.CodeInvalidArgument:
		return &planner.InvalidError{Field: "query", Message: "the geocoder refused the query"}
	default:
		return &unavailableError{Message: "the geocoder is unavailable; retry later", RetryAfter: reply.RetryAfter}
	}
	if !reply.Cached {
		_ = c.limits.allow(ctx, "geocode", user, c.cfg.RateLimits.Geocode)
	}
	return proto.Unmarshal(msg.Data, out)
}

func (s *geocodingService) SearchPlaces(ctx context.Context, req *connect.Request[roadbookv1.SearchPlacesRequest]) (*connect.Response[roadbookv1.SearchPlacesResponse], error) {
	user, err := planner.Caller(ctx)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	in := proto.Clone(req.Msg).(*roadbookv1.SearchPlacesRequest)
	if in.Limit == 0 {
		in.Limit = 5
	}
	out := &roadbookv1.SearchPlacesResponse{}
	if err := s.geocode(ctx, user, geocoding.SubjectSearch, in, out); err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(out), nil
}

func (s *geocodingService) ReversePlace(ctx context.Context, req *connect.Request[roadbookv1.ReversePlaceRequest]) (*connect.Response[roadbookv1.ReversePlaceResponse], error) {
	user, err := planner.Caller(ctx)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := &roadbookv1.ReversePlaceResponse{}
	if err := s.geocode(ctx, user, geocoding.SubjectReverse, req.Msg, out); err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(out), nil
}
