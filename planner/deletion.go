package planner

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/trip"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/tripstore"
)

// Delete deletes (or previews deleting) the caller's trip: TripDeleted is
// recorded, the collection generation moves, then the trip's streams are
// removed whole (tripstore.RemoveTrip). A removal that fails leaves the
// trip deleted all the same — every read answers not found — and is logged
// rather than reported: the next read that meets the trip finishes it.
func (p *Planner) Delete(ctx context.Context, w Write, tripID string, version int64) (Outcome, error) {
	user, id, err := callerAnd(ctx, tripID)
	if err != nil {
		return Outcome{}, err
	}
	return p.delete(ctx, user, w, id, version)
}

func (p *Planner) delete(ctx context.Context, user string, w Write, id uuid.UUID, version int64) (Outcome, error) {
	o, err := p.change(ctx, user, w, id, command(trip.Delete{Version: version}),
		tripstore.Options{Collection: eventsv1.CollectionChange_COLLECTION_CHANGE_DELETED}, "")
	if errors.Is(err, trip.ErrNotFound) {
		p.trips.FinishDeletion(ctx, user, id)
		return Outcome{}, err
	}
	if err != nil || o.Preview {
		return o, err
	}
	remove := func() error { return p.trips.RemoveDeletedTrip(ctx, id, o.After) }
	if o.Replayed { // the first call's state is not at hand: read the codes back
		remove = func() error { return p.trips.RemoveTrip(ctx, id) }
	}
	if err := remove(); err != nil {
		p.log.WarnContext(ctx, "trip deleted but its stream is not removed yet; the next read of it finishes the removal",
			"trip_id", id.String(), "error", err)
	}
	return o, nil
}

// DeleteAccount deletes every trip of the caller, then their collection
// stream; confirm must repeat the caller's own user id. Previewed, it
// counts the trips it would delete. It answers how many trips it deleted
// (or would).
func (p *Planner) DeleteAccount(ctx context.Context, confirm string, validateOnly bool) (int, error) {
	user, err := Caller(ctx)
	if err != nil {
		return 0, err
	}
	if confirm != user {
		return 0, &InvalidError{Field: "confirmUserId", Message: "must repeat the caller's own user id"}
	}
	n := 0
	if validateOnly {
		err := p.eachTrip(ctx, user, func(tripstore.Loaded) error { n++; return nil })
		return n, err
	}
	err = p.eachTrip(ctx, user, func(l tripstore.Loaded) error {
		id, _ := tripstore.TripID(l.Info.ID)
		_, err := p.delete(ctx, user, Write{}, id, l.State.Version)
		if errors.Is(err, trip.ErrVersionConflict) {
			// Moved in between: delete at the version it is at now.
			cur, lerr := p.trips.Load(ctx, tripstore.User(user), id)
			if lerr != nil {
				return lerr
			}
			_, err = p.delete(ctx, user, Write{}, id, cur.State.Version)
		}
		if err == nil {
			n++
		}
		return err
	})
	if err == nil {
		err = p.trips.DeleteCollection(ctx, user)
	}
	return n, err
}
