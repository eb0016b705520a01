package postgres

import (
	"context"

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
		defer s.committed()
		return translate("hold append", tx.Commit(context.Background()))
	}, nil
}

// FeedSQL is the feed page statement, for the test of its plan.
const FeedSQL = feedSQL

// FeedPageSQL is the feed page statement with the owners of the streams a
// page begins, for the test of its plan.
const FeedPageSQL = feedPageSQL

// AnnounceSQL is the statement announcing a commit to other processes, so
// statement counts can tell it from the append's own.
const AnnounceSQL = announceSQL

// Announcements is how many announcements st has sent and failed to send.
func Announcements(st eventstore.Store) (sent, failed int64) {
	s := st.(*Store)
	return s.announcements.Load(), s.announceFailures.Load()
}

// Announcing reports whether st has an announcement in flight, which a
// commit starts before its Append returns unless st listens itself.
func Announcing(st eventstore.Store) bool { return st.(*Store).announcing.Load() != announceIdle }

// Heard is how many announcements from its own schema st's listener woke
// its readers for.
func Heard(st eventstore.Store) int64 { return st.(*Store).heard.Load() }
