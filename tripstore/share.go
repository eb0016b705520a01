package tripstore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
)

// shareStream is the index stream of a share code: one event naming the
// trip, written before the trip's TripShared so a public read can find the
// trip from the code. The trip's own state stays the authority (a revoked
// or deleted trip answers not found whatever the index says).
func shareStream(code string) eventstore.StreamID { return eventstore.StreamID("share-" + code) }

// shareOwner owns the index streams (no user lists them).
const shareOwner = "roadbook:share-index"

// IndexShareCode draws a fresh share code for trip id and indexes it, and
// returns the random bytes the code is made of: trip.Share draws its code
// from them, so the code the trip records is the one indexed. A collision
// (2^-96) draws again.
func (s *Store) IndexShareCode(ctx context.Context, id uuid.UUID) ([]byte, error) {
	for range 4 {
		b := make([]byte, trip.ShareCodeBytes)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		code := base64.RawURLEncoding.EncodeToString(b)
		_, err := s.events.Append(ctx, eventstore.AppendRequest{
			Stream: shareStream(code), Expected: eventstore.NoStream(), Owner: shareOwner,
			Events: []eventstore.NewEvent{{Payload: wrapperspb.String(id.String())}},
		})
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, eventstore.ErrVersionConflict) && !errors.Is(err, eventstore.ErrStreamDeleted) {
			return nil, err
		}
	}
	return nil, errors.New("tripstore: four share codes in a row were taken")
}

// errNoShare is every unknown, revoked or deleted share link.
var errNoShare = &trip.Error{Code: trip.CodeNotFound, Message: "no such share link"}

// SharedTrip resolves a public code to the trip it shares, or not found
// (unknown, revoked, or the trip deleted).
func (s *Store) SharedTrip(ctx context.Context, code string) (trip.State, error) {
	events, err := s.events.ReadStream(ctx, shareStream(code), 0, 1)
	if err != nil || len(events) == 0 {
		return trip.State{}, errNoShare
	}
	ref, ok := events[0].Payload.(*wrapperspb.StringValue)
	if !ok {
		return trip.State{}, errNoShare
	}
	id, err := uuid.Parse(ref.GetValue())
	if err != nil {
		return trip.State{}, errNoShare
	}
	l, err := s.Load(ctx, System(), id)
	if err != nil || l.State.Share.Code != code {
		return trip.State{}, errNoShare
	}
	return l.State, nil
}
