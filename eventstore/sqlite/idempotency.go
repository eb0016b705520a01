package sqlite

import (
	"context"
	"fmt"

	"github.com/roadbook/roadbook/eventstore"
)

// LookupIdempotency implements eventstore.Store on a read connection, with
// the rule of the append's own check (replay, in append.go): a record whose
// expiry has passed by the store's clock is a miss.
func (s *Store) LookupIdempotency(ctx context.Context, key string, requestHash []byte) (eventstore.AppendResult, error) {
	if err := eventstore.ValidateIdempotencyLookup(key, requestHash); err != nil {
		return eventstore.AppendResult{}, err
	}
	res, found, err := replay(ctx, s.r, &eventstore.Idempotency{Key: key, RequestHash: requestHash}, s.cfg.now())
	if err != nil {
		return eventstore.AppendResult{}, translate(ctx, err)
	}
	if !found {
		return eventstore.AppendResult{}, fmt.Errorf("idempotency key %q: %w", key, eventstore.ErrNotFound)
	}
	return res, nil
}
