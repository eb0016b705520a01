package tripstore

import (
	"context"
	"errors"
	"math"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/roadbook/roadbook/eventstore"
)

// replay asks the store whether idem was already answered on the trip's
// stream, before anything is decided: a caller's retry must get the first
// answer even where the command would now be refused (the trip exists, the
// version moved). It answers the stored response and true for a recorded
// key, errKeyReused for the key sent with another request, and false for a
// key never seen. Execute is its only caller, so the probe can become a
// direct lookup in one place.
//
// The probe is an append that cannot succeed (expected version MaxInt64):
// the store checks the key before the version, so a recorded key answers
// its response (or the mismatch) and an unknown one fails the version
// check, writing nothing.
func (s *Store) replay(ctx context.Context, actor Actor, tripID uuid.UUID, idem *eventstore.Idempotency) ([]byte, bool, error) {
	res, err := s.events.Append(ctx, eventstore.AppendRequest{
		Stream:      StreamID(tripID),
		Expected:    eventstore.Exact(math.MaxInt64),
		Events:      []eventstore.NewEvent{{Payload: &emptypb.Empty{}}},
		Owner:       actor.User,
		Idempotency: idem,
	})
	switch {
	case err == nil && res.Replayed:
		return res.Response, true, nil
	case errors.Is(err, eventstore.ErrIdempotencyMismatch):
		return nil, false, errKeyReused
	case err == nil:
		// Cannot happen (no stream reaches MaxInt64); refuse rather than guess.
		return nil, false, errors.New("tripstore: replay probe appended")
	}
	return nil, false, nil
}
