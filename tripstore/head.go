package tripstore

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
)

// Head reads the trip's head row (version, owner, list summary) in one
// query, with Load's visibility: a trip that does not exist, was deleted
// or belongs to someone else is trip.ErrNotFound. It is what a cache of a
// trip's folded answers checks its entry against (the entry stands while
// the version has not moved), and LoadFrom folds to it when the entry does
// not stand, so a read pays one head row either way. Meeting a deleted
// trip whose stream is still there finishes its removal, as FinishDeletion
// does, with the row already in hand.
func (s *Store) Head(ctx context.Context, actor Actor, tripID uuid.UUID) (eventstore.StreamInfo, error) {
	info, err := s.events.Stream(ctx, StreamID(tripID))
	switch {
	case errors.Is(err, eventstore.ErrNotFound), errors.Is(err, eventstore.ErrStreamDeleted):
		return eventstore.StreamInfo{}, notFound()
	case err != nil:
		return eventstore.StreamInfo{}, err
	case !actor.System && info.Owner != actor.User:
		return eventstore.StreamInfo{}, notFound()
	case RowDeleted(info):
		s.finishDeletion(ctx, tripID)
		return eventstore.StreamInfo{}, notFound()
	}
	return info, nil
}

// LoadFrom folds the trip to the head row Head answered, without reading
// the row again (aggregate.LoadFrom): nothing at all when this store's
// state cache is at that version — a trip this process wrote last —, else
// the events it lacks.
func (s *Store) LoadFrom(ctx context.Context, actor Actor, head eventstore.StreamInfo) (Loaded, error) {
	l, err := aggregate.LoadFrom(ctx, s.events, s.def, head)
	if err != nil {
		return Loaded{}, translate(err)
	}
	if err := visible(actor, l); err != nil {
		return Loaded{}, err
	}
	return l, nil
}
