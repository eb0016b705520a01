package tripstore

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/eventstore"
)

// replay asks the store whether idem was already answered, before anything
// is decided: a caller's retry must get the first answer even where the
// command would now be refused (the trip exists, the version moved). It
// answers the stored response and true for a recorded key, errKeyReused for
// the key sent with another request, and false for a key never seen or
// expired — then the write executes, and its append records the key (and
// answers a replay itself if a concurrent first call won meanwhile).
// Execute is its only caller.
func (s *Store) replay(ctx context.Context, _ Actor, _ uuid.UUID, idem *eventstore.Idempotency) ([]byte, bool, error) {
	res, err := s.events.LookupIdempotency(ctx, idem.Key, idem.RequestHash)
	switch {
	case err == nil:
		return res.Response, true, nil
	case errors.Is(err, eventstore.ErrIdempotencyMismatch):
		return nil, false, errKeyReused
	case errors.Is(err, eventstore.ErrNotFound):
		return nil, false, nil
	}
	return nil, false, err
}
