package postgres

import (
	"context"
	"time"

	"github.com/roadbook/roadbook/eventstore"
)

// HoldAppend begins req in a transaction and returns with it written but not
// committed, for the conformance suite's gap test.
func HoldAppend(ctx context.Context, st eventstore.Store, req eventstore.AppendRequest) (func() error, error) {
	s := st.(*Store)
	events, err := req.Validate()
	if err != nil {
		return nil, err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, translate("hold append", err)
	}
	if _, err := s.appendOn(ctx, tx, req, events); err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	return func() error {
		defer s.signal()
		return translate("hold append", tx.Commit(context.Background()))
	}, nil
}

// FeedSQL is the feed page statement, for the test of its plan.
const FeedSQL = feedSQL

// FeedPageSQL is the feed page statement with the owners of the streams a
// page begins, for the test of its plan.
const FeedPageSQL = feedPageSQL

// SetPrefetchWait sets how long a feed read waits for a page an append is
// reading for it (prefetchWait).
func SetPrefetchWait(s *Store, d time.Duration) { s.prefetch.wait = d }
