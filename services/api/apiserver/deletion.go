package apiserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/tripstore"
)

// deleteTrip records TripDeleted (so watchers and the relay see it), moves
// the collection generation, then removes the trip's streams whole, leaving
// tombstones so the id is never reused; housekeeping collects the route
// blob no trip references any more.
//
// The removal is a second step the store cannot join to the first (an
// append and a stream deletion are two transactions). When it fails the
// trip is deleted all the same: TripDeleted is folded, so every read
// answers not found, and the list row carries SummaryData.Deleted. The
// next read that meets the trip — a list page, a load, a retried delete,
// an account walk — finishes the removal (finishDeletion), so the failure
// is logged, not reported to a caller whose trip is gone.
func (c *core) deleteTrip(ctx context.Context, user string, id uuid.UUID, m *roadbookv1.DeleteTripRequest, key string) (*roadbookv1.DeleteTripResponse, error) {
	resp, err := run(ctx, c, write{procedure: roadbookv1connect.TripServiceDeleteTripProcedure, user: user, tripID: id,
		req: m, key: key, cmd: trip.Delete{Version: m.Version}, change: eventsv1.CollectionChange_COLLECTION_CHANGE_DELETED},
		func(after trip.State) *roadbookv1.DeleteTripResponse {
			return &roadbookv1.DeleteTripResponse{Version: after.Version, Deleted: true}
		})
	if errors.Is(err, trip.ErrNotFound) {
		c.finishDeletion(ctx, user, id)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := c.removeTrip(ctx, id); err != nil {
		c.log.WarnContext(ctx, "trip deleted but its stream is not removed yet; the next read of it finishes the removal",
			"trip_id", id.String(), "error", err)
	}
	return resp, nil
}

// removeTrip deletes the share-index streams of every code the trip ever
// had (they name the trip), then the trip's stream. Each step is
// idempotent, so a failed removal is simply run again.
func (c *core) removeTrip(ctx context.Context, id uuid.UUID) error {
	stream := tripstore.StreamID(id)
	events, err := c.cfg.Store.ReadStream(ctx, stream, 0, 0)
	if errors.Is(err, eventstore.ErrStreamDeleted) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range events {
		if sh, ok := e.Payload.(*eventsv1.TripShared); ok {
			if err := c.cfg.Store.DeleteStream(ctx, shareStream(sh.GetShareCode())); err != nil && !errors.Is(err, eventstore.ErrNotFound) {
				return err
			}
		}
	}
	return c.cfg.Store.DeleteStream(ctx, stream)
}

// finishDeletion removes user's trip id when its TripDeleted is recorded but
// its stream is still there (see deleteTrip). Anything else — a live trip,
// someone else's, one already gone — is left alone. Best effort: a failure
// is logged and the next read tries again.
func (c *core) finishDeletion(ctx context.Context, user string, id uuid.UUID) {
	info, err := c.cfg.Store.Stream(ctx, tripstore.StreamID(id))
	if err != nil || info.Owner != user || !rowDeleted(info) {
		return
	}
	if err := c.removeTrip(ctx, id); err != nil {
		c.log.WarnContext(ctx, "removing a deleted trip failed again", "trip_id", id.String(), "error", err)
	}
}

// rowDeleted reports whether a list row is a deleted trip not yet removed.
func rowDeleted(info eventstore.StreamInfo) bool {
	var d tripstore.SummaryData
	return json.Unmarshal(info.Summary.Data, &d) == nil && d.Deleted
}
