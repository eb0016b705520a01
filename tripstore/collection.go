package tripstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// The generation of a user's trip collection (ListTripsResponse.generation)
// is the version of a per-user stream that gets one TripCollectionChanged
// event each time a trip joins or leaves the collection. Why a stream and
// not a counter column or a hash of the list: the event store is the one
// durable, versioned thing both backends share, an append with
// ExpectedVersion Any never conflicts, and the stream id starts with
// "user-", not "trip-", so the worker's relay (which maps only trip streams
// to EVENTS and JOBS) publishes nothing for it.

// collectionStream is the user's collection stream of one epoch. The user
// id is hashed: a JWT subject may hold bytes a stream id may not
// ("auth0|…", e-mail addresses) or be longer than one. An account deletion
// removes the stream (it names the user's trips) and its tombstone keeps the
// id from being reused, so a user who comes back gets the next epoch.
func collectionStream(user string, epoch int64) eventstore.StreamID {
	h := sha256.Sum256([]byte(user))
	id := "user-" + hex.EncodeToString(h[:16])
	if epoch > 0 {
		id += "." + strconv.FormatInt(epoch, 10)
	}
	return eventstore.StreamID(id)
}

// maxEpochs bounds the probe for a user's live collection stream (one epoch
// per account deletion).
const maxEpochs = 64

// epochShift puts the epoch above any stream version, so a generation never
// goes back when a returning user starts a new epoch.
const epochShift = 40

// collection is the user's live collection stream and its generation (0
// before any change).
func (s *Store) collection(ctx context.Context, user string) (eventstore.StreamID, int64, error) {
	for epoch := range int64(maxEpochs) {
		id := collectionStream(user, epoch)
		info, err := s.events.Stream(ctx, id)
		switch {
		case errors.Is(err, eventstore.ErrStreamDeleted):
			continue
		case errors.Is(err, eventstore.ErrNotFound):
			return id, epoch << epochShift, nil
		case err != nil:
			return "", 0, err
		}
		return id, epoch<<epochShift | info.Version, nil
	}
	return "", 0, errors.New("tripstore: no collection epoch left")
}

// Generation is the user's collection generation: it moves whenever a trip
// joins or leaves the collection, so a list page can tell it is stale.
func (s *Store) Generation(ctx context.Context, user string) (int64, error) {
	_, g, err := s.collection(ctx, user)
	return g, err
}

// recordCollectionChange records that trip id joined or left user's
// collection. Execute runs it after the trip's own append succeeded, in the
// same request: a listing read between the two carries the old generation
// with the new set, which only makes the next page answer stale_cursor (a
// spurious restart, never a page mixing two sets). A failure is retried,
// then logged: the trip write stands and must not be reported as failed.
func (s *Store) recordCollectionChange(ctx context.Context, user string, id uuid.UUID, change eventsv1.CollectionChange) {
	var err error
	for range 3 {
		if err = s.appendCollection(ctx, user, &eventsv1.TripCollectionChanged{TripId: id.String(), Change: change}); err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		s.log.ErrorContext(ctx, "collection generation not recorded", "trip_id", id.String(), "error", err)
	}
}

// appendCollection appends e to user's live collection stream. It appends
// to each epoch's stream in turn, without reading its head row first: the
// append (expecting any version, so it never conflicts) creates the stream
// of a user's first change, and a deleted epoch's stream refuses it
// (eventstore.ErrStreamDeleted) so the next epoch is tried — the stream
// collection would have found, one round trip instead of two for every
// user who never deleted their account.
func (s *Store) appendCollection(ctx context.Context, user string, e *eventsv1.TripCollectionChanged) error {
	for epoch := range int64(maxEpochs) {
		_, err := s.events.Append(ctx, eventstore.AppendRequest{
			Stream:   collectionStream(user, epoch),
			Expected: eventstore.Any(),
			Owner:    user,
			Events:   []eventstore.NewEvent{{Payload: e}},
		})
		if !errors.Is(err, eventstore.ErrStreamDeleted) {
			return err
		}
	}
	return errors.New("tripstore: no collection epoch left")
}

// DeleteCollection removes the user's collection stream (its events name
// the deleted trips). Its tombstone moves a returning user to the next
// epoch, whose generations are all higher.
func (s *Store) DeleteCollection(ctx context.Context, user string) error {
	stream, gen, err := s.collection(ctx, user)
	if err != nil || gen&(1<<epochShift-1) == 0 {
		return err // no live stream in this epoch
	}
	return s.events.DeleteStream(ctx, stream)
}
