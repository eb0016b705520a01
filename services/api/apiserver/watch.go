package apiserver

import (
	"context"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/tripstore"
)

// watchService implements roadbookv1connect.WatchServiceHandler. Wake-ups
// come from NATS core subscriptions on events.trip.<id>.> (the relay
// publishes there) and from a slow poll of the store, so it works with or
// without the relay; either way the store is what is read.
type watchService struct{ *shared }

var _ roadbookv1connect.WatchServiceHandler = (*watchService)(nil)

// changeOf classifies an event type (its short name) into what changed.
func changeOf(eventType string) roadbookv1.TripChange {
	name := eventType[strings.LastIndexByte(eventType, '.')+1:]
	switch {
	case strings.HasPrefix(name, "Route"):
		return roadbookv1.TripChange_TRIP_CHANGE_ROUTE
	case strings.HasPrefix(name, "Stage"), strings.HasPrefix(name, "RestDay"), name == "TripDuplicated":
		return roadbookv1.TripChange_TRIP_CHANGE_STAGES
	case strings.Contains(name, "Settings"), strings.Contains(name, "Title"):
		return roadbookv1.TripChange_TRIP_CHANGE_SETTINGS
	case strings.Contains(name, "Label"):
		return roadbookv1.TripChange_TRIP_CHANGE_LABELS
	case strings.HasPrefix(name, "Analysis"):
		return roadbookv1.TripChange_TRIP_CHANGE_ANALYSIS
	case strings.Contains(name, "Accommodation"):
		return roadbookv1.TripChange_TRIP_CHANGE_ACCOMMODATIONS
	case strings.Contains(name, "Waypoint"):
		return roadbookv1.TripChange_TRIP_CHANGE_WAYPOINTS
	case strings.Contains(name, "Shared"), strings.Contains(name, "Unshared"):
		return roadbookv1.TripChange_TRIP_CHANGE_SHARE
	case name == "TripDeleted":
		return roadbookv1.TripChange_TRIP_CHANGE_DELETED
	}
	return roadbookv1.TripChange_TRIP_CHANGE_STAGES
}

func resumeToken(streamVersion int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("sv:" + strconv.FormatInt(streamVersion, 10)))
}

func readResume(tok string) (int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil {
		if rest, ok := strings.CutPrefix(string(b), "sv:"); ok {
			if n, err := strconv.ParseInt(rest, 10, 64); err == nil && n >= 0 {
				return n, nil
			}
		}
	}
	return 0, &planner.InvalidError{Field: "resumeToken", Message: "is not a token from this stream"}
}

func (s *watchService) WatchTrip(ctx context.Context, req *connect.Request[roadbookv1.WatchTripRequest], stream *connect.ServerStream[roadbookv1.WatchTripResponse]) error {
	m := req.Msg
	user, err := planner.Caller(ctx)
	if err != nil {
		return s.fail(ctx, err)
	}
	id, err := uuid.Parse(m.TripId)
	if err != nil {
		return s.fail(ctx, &planner.InvalidError{Field: "tripId", Message: "must be a UUID"})
	}
	release, err := s.watching.acquire(user)
	if err != nil {
		return s.fail(ctx, err)
	}
	defer release()
	// A stream lives at most WatchLifetime, then ends cleanly (status OK);
	// the client reconnects with the last resume token and misses nothing.
	// Without it a stream would hold its slot, its subscription and its
	// token's authority forever — past the token's own expiry.
	lifetime := time.NewTimer(s.cfg.WatchLifetime)
	defer lifetime.Stop()
	wake := make(chan struct{}, 1)
	sub, err := s.cfg.NATS.Subscribe("events.trip."+id.String()+".>", func(*nats.Msg) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return s.fail(ctx, err)
	}
	defer func() { _ = sub.Unsubscribe() }()

	l, err := s.trips.Load(ctx, tripstore.User(user), id)
	if err != nil {
		return s.fail(ctx, err)
	}
	v := s.view()
	sent := l.StreamVersion
	switch {
	case m.ResumeToken != "":
		if sent, err = readResume(m.ResumeToken); err != nil {
			return s.fail(ctx, err)
		}
	case m.FromVersion > 0:
		if sent, err = s.streamVersionAt(ctx, id, m.FromVersion); err != nil {
			return s.fail(ctx, err)
		}
	default:
		if err := stream.Send(&roadbookv1.WatchTripResponse{Version: l.State.Version, ResumeToken: resumeToken(l.StreamVersion),
			Changes: []roadbookv1.TripChange{roadbookv1.TripChange_TRIP_CHANGE_SNAPSHOT}, Progress: progress(l.State),
			Partial: partial(l.State), Trip: v.digest(l.State, &l.Info)}); err != nil {
			return err
		}
	}
	poll := time.NewTicker(s.cfg.WatchPoll)
	defer poll.Stop()
	for {
		// Read the changes after what was sent.
		events, err := s.cfg.Store.ReadStream(ctx, tripstore.StreamID(id), sent, 0)
		if err != nil && !isNotFound(err) && !errors.Is(err, eventstore.ErrStreamDeleted) {
			return s.fail(ctx, err)
		}
		if len(events) > 0 {
			var changes []roadbookv1.TripChange
			seen := map[roadbookv1.TripChange]bool{}
			deleted := false
			for _, e := range events {
				ch := changeOf(e.Type)
				deleted = deleted || ch == roadbookv1.TripChange_TRIP_CHANGE_DELETED
				if !seen[ch] {
					seen[ch] = true
					changes = append(changes, ch)
				}
			}
			last := events[len(events)-1].Version
			cur, lerr := s.trips.Load(ctx, tripstore.User(user), id)
			if deleted || errors.Is(lerr, trip.ErrNotFound) {
				return stream.Send(&roadbookv1.WatchTripResponse{Version: cur.State.Version, ResumeToken: resumeToken(last),
					Changes: []roadbookv1.TripChange{roadbookv1.TripChange_TRIP_CHANGE_DELETED}})
			}
			if lerr != nil {
				return s.fail(ctx, lerr)
			}
			sent = max(last, cur.StreamVersion)
			if err := stream.Send(&roadbookv1.WatchTripResponse{Version: cur.State.Version, ResumeToken: resumeToken(sent),
				Changes: changes, Progress: progress(cur.State), Partial: partial(cur.State), Trip: v.digest(cur.State, &cur.Info)}); err != nil {
				return err
			}
			continue
		}
		if err != nil { // the stream is gone (deleted whole)
			return stream.Send(&roadbookv1.WatchTripResponse{ResumeToken: resumeToken(sent),
				Changes: []roadbookv1.TripChange{roadbookv1.TripChange_TRIP_CHANGE_DELETED}})
		}
		if _, lerr := s.trips.Load(ctx, tripstore.User(user), id); errors.Is(lerr, trip.ErrNotFound) {
			return stream.Send(&roadbookv1.WatchTripResponse{ResumeToken: resumeToken(sent),
				Changes: []roadbookv1.TripChange{roadbookv1.TripChange_TRIP_CHANGE_DELETED}})
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.done:
			return nil
		case <-lifetime.C:
			return nil
		case <-wake:
		case <-poll.C:
		}
	}
}

// streamVersionAt is the stream position of the last event at which the
// trip was at version (changes after it are sent on resume).
func (s *watchService) streamVersionAt(ctx context.Context, id [16]byte, version int64) (int64, error) {
	events, err := s.cfg.Store.ReadStream(ctx, tripstore.StreamID(id), 0, 0)
	if err != nil {
		return 0, err
	}
	st := trip.State{}
	at := int64(0)
	for _, e := range events {
		st = trip.Evolve(st, e.Payload)
		if st.Version > version {
			break
		}
		at = e.Version
	}
	return at, nil
}
