package tripstore

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// A trip's deletion is two steps the store cannot join: TripDeleted is
// appended (so watchers and the relay see it), then the trip's streams are
// removed whole, leaving tombstones so the id is never reused; housekeeping
// collects the route blob no trip references any more. When the removal
// fails the trip is deleted all the same: TripDeleted is folded, so every
// read answers not found, and the list row carries SummaryData.Deleted. The
// next read that meets the trip finishes the removal (FinishDeletion).

// RemoveTrip deletes the share-index streams of every code the trip ever
// had (they name the trip), then the trip's stream. Each step is
// idempotent, so a failed removal is simply run again. It reads the codes
// from the trip's events; a caller that holds the deleted trip's state
// uses RemoveDeletedTrip, which reads nothing.
func (s *Store) RemoveTrip(ctx context.Context, id uuid.UUID) error {
	stream := StreamID(id)
	events, err := s.events.ReadStream(ctx, stream, 0, 0)
	if errors.Is(err, eventstore.ErrStreamDeleted) {
		return nil
	}
	if err != nil {
		return err
	}
	var codes []string
	for _, e := range events {
		if sh, ok := e.Payload.(*eventsv1.TripShared); ok {
			codes = append(codes, sh.GetShareCode())
		}
	}
	return s.remove(ctx, id, codes)
}

// RemoveDeletedTrip is RemoveTrip for the caller that just deleted the
// trip and holds its state as the deletion left it: the codes the trip
// ever had are that state's active and revoked ones (every TripShared sets
// the active code, which only a TripUnshared revokes), so the stream is
// not read back — for a trip with stages, megabytes of events decoded only
// to find the one or two TripShared among them.
func (s *Store) RemoveDeletedTrip(ctx context.Context, id uuid.UUID, st trip.State) error {
	codes := slices.Clone(st.Share.Revoked)
	if st.Share.Active() {
		codes = append(codes, st.Share.Code)
	}
	return s.remove(ctx, id, codes)
}

// remove deletes the share-index streams of codes, then the trip's stream.
func (s *Store) remove(ctx context.Context, id uuid.UUID, codes []string) error {
	for _, code := range codes {
		if err := s.events.DeleteStream(ctx, shareStream(code)); err != nil && !errors.Is(err, eventstore.ErrNotFound) {
			return err
		}
	}
	return s.events.DeleteStream(ctx, StreamID(id))
}

// FinishDeletion removes user's trip id when its TripDeleted is recorded but
// its stream is still there. Anything else — a live trip, someone else's,
// one already gone — is left alone. Best effort: a failure is logged and the
// next read tries again.
func (s *Store) FinishDeletion(ctx context.Context, user string, id uuid.UUID) {
	info, err := s.events.Stream(ctx, StreamID(id))
	if err != nil || info.Owner != user || !RowDeleted(info) {
		return
	}
	s.finishDeletion(ctx, id)
}

// finishDeletion removes trip id, whose row says it is deleted; a failure
// is logged (the next read tries again).
func (s *Store) finishDeletion(ctx context.Context, id uuid.UUID) {
	if err := s.RemoveTrip(ctx, id); err != nil {
		s.log.WarnContext(ctx, "removing a deleted trip failed again", "trip_id", id.String(), "error", err)
	}
}

// RowDeleted reports whether a list row is a deleted trip not yet removed.
func RowDeleted(info eventstore.StreamInfo) bool {
	var d SummaryData
	return json.Unmarshal(info.Summary.Data, &d) == nil && d.Deleted
}

// LiveTrip is the trip id of one of user's list rows when it is a live trip:
// not another aggregate's stream, and not a deleted trip, whose removal it
// finishes on the way (every walk over a user's rows meets those).
func (s *Store) LiveTrip(ctx context.Context, user string, info eventstore.StreamInfo) (uuid.UUID, bool) {
	id, ok := TripID(info.ID)
	if !ok {
		return uuid.Nil, false
	}
	if RowDeleted(info) {
		s.FinishDeletion(ctx, user, id)
		return uuid.Nil, false
	}
	return id, true
}
