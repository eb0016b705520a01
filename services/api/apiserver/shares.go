package apiserver

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/tripstore"
)

// shareService implements roadbookv1connect.ShareServiceHandler.
type shareService struct{ *core }

var _ roadbookv1connect.ShareServiceHandler = (*shareService)(nil)

// shareStream is the index stream of a share code: one event naming the
// trip, written before the trip's TripShared so a public read can find the
// trip from the code. The trip's own state stays the authority (a revoked
// or deleted trip answers not found whatever the index says).
func shareStream(code string) eventstore.StreamID { return eventstore.StreamID("share-" + code) }

// shareOwner owns the index streams (no user lists them).
const shareOwner = "roadbook:share-index"

// fixedRand answers every read with the same bytes, so Decide (which may
// run more than once on a stream conflict) draws the code indexed first.
type fixedRand []byte

func (f fixedRand) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = f[i%len(f)]
	}
	return len(p), nil
}

func (s *shareService) ShareTrip(ctx context.Context, req *connect.Request[roadbookv1.ShareTripRequest]) (*connect.Response[roadbookv1.ShareTripResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := tripID(m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	l, err := s.trips.Load(ctx, tripstore.User(user), id)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	var seed fixedRand
	key := idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key"))
	if !l.State.Share.Active() {
		// Index a fresh code first; a collision (2^-48) draws again.
		for range 4 {
			b := make([]byte, trip.ShareCodeBytes)
			if _, err := rand.Read(b); err != nil {
				return nil, s.fail(ctx, err)
			}
			code := base64.RawURLEncoding.EncodeToString(b)
			_, err := s.cfg.Store.Append(ctx, eventstore.AppendRequest{
				Stream: shareStream(code), Expected: eventstore.NoStream(), Owner: shareOwner,
				Events: []eventstore.NewEvent{{Payload: wrapperspb.String(id.String())}},
			})
			if err == nil {
				seed = b
				break
			}
			if !errors.Is(err, eventstore.ErrVersionConflict) && !errors.Is(err, eventstore.ErrStreamDeleted) {
				return nil, s.fail(ctx, err)
			}
		}
	}
	if seed == nil {
		seed = fixedRand{0} // the trip is shared already: Decide answers the conflict
	}
	v := s.view()
	resp, err := run(ctx, s.core, write{procedure: roadbookv1connect.ShareServiceShareTripProcedure, user: user, tripID: id,
		req: m, key: key, cmd: trip.Share{Version: m.Version, Rand: seed}},
		func(after trip.State) *roadbookv1.ShareTripResponse {
			now := s.cfg.Clock()
			return &roadbookv1.ShareTripResponse{Version: after.Version, VersionUnchanged: true, Share: v.share(after, &now)}
		})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}

func (s *shareService) UnshareTrip(ctx context.Context, req *connect.Request[roadbookv1.UnshareTripRequest]) (*connect.Response[roadbookv1.UnshareTripResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	cmd := trip.Unshare{Version: m.Version}
	if m.ValidateOnly {
		l, err := s.load(ctx, user, m.TripId)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		after, err := s.preview(l.State, cmd)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		return connect.NewResponse(&roadbookv1.UnshareTripResponse{Version: l.State.Version, VersionUnchanged: true, Impact: s.view().impact(l.State, after)}), nil
	}
	id, err := tripID(m.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	resp, err := run(ctx, s.core, write{procedure: roadbookv1connect.ShareServiceUnshareTripProcedure, user: user, tripID: id,
		req: m, key: idemKey(m.IdempotencyKey, req.Header().Get("Idempotency-Key")), cmd: cmd},
		func(after trip.State) *roadbookv1.UnshareTripResponse {
			return &roadbookv1.UnshareTripResponse{Version: after.Version, VersionUnchanged: true, Revoked: true}
		})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(resp), nil
}

func (s *shareService) GetShare(ctx context.Context, req *connect.Request[roadbookv1.GetShareRequest]) (*connect.Response[roadbookv1.GetShareResponse], error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.load(ctx, user, req.Msg.TripId)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return connect.NewResponse(&roadbookv1.GetShareResponse{Share: s.view().share(l.State, nil)}), nil
}

// sharedTrip resolves a public code to the trip it shares, or not found
// (unknown, revoked, or the trip deleted).
func (c *core) sharedTrip(ctx context.Context, code string) (trip.State, error) {
	events, err := c.cfg.Store.ReadStream(ctx, shareStream(code), 0, 1)
	if err != nil || len(events) == 0 {
		return trip.State{}, &trip.Error{Code: trip.CodeNotFound, Message: "no such share link"}
	}
	ref, ok := events[0].Payload.(*wrapperspb.StringValue)
	if !ok {
		return trip.State{}, &trip.Error{Code: trip.CodeNotFound, Message: "no such share link"}
	}
	id, err := uuid.Parse(ref.GetValue())
	if err != nil {
		return trip.State{}, &trip.Error{Code: trip.CodeNotFound, Message: "no such share link"}
	}
	l, err := c.trips.Load(ctx, tripstore.System(), id)
	if err != nil || l.State.Share.Code != code {
		return trip.State{}, &trip.Error{Code: trip.CodeNotFound, Message: "no such share link"}
	}
	return l.State, nil
}
