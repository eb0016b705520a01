package tripstore

import (
	"context"
	"errors"

	"github.com/roadbook/roadbook/eventstore"
)

// replay answers whether idem was already answered, for a keyed write that
// decided nothing to append: its command was refused, or found nothing to
// do. A caller's retry must get the first answer even where the command
// would now be refused (the trip exists, the version moved, the trip is
// deleted), so ExecuteBuilt asks here before it reports the refusal. It
// answers the stored response and true for a recorded key, errKeyReused for
// the key sent with another request, and false for a key never seen or
// expired — then the refusal (or the state) stands.
//
// A write that does append needs no lookup: its append checks the key under
// the key's lock and answers a recorded one as a replay, appending nothing
// (eventstore.Store.Append). Asking first, as Execute once did for every
// keyed write, cost every write that acted a read of command_dedup the
// append then made again.
func (s *Store) replay(ctx context.Context, idem *eventstore.Idempotency) ([]byte, bool, error) {
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

// answered is what ExecuteBuilt reports for a keyed write whose command
// appended nothing (err, or res without events): the first answer when the
// key was recorded, else res and err as they are.
func (s *Store) answered(ctx context.Context, idem *eventstore.Idempotency, res Result, err error) (Result, error) {
	if errors.Is(err, errKeyReused) || res.Append.Replayed {
		return res, err // the store answered the key already
	}
	answer, replayed, lerr := s.replay(ctx, idem)
	switch {
	case lerr != nil:
		return Result{}, lerr
	case replayed:
		return Result{Append: eventstore.AppendResult{Replayed: true, Response: answer}}, nil
	}
	return res, err
}
