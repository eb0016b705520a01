package planner

import (
	"context"
	"crypto/sha256"
	"errors"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/tripstore"
)

// Write is what every write carries beside its command, the same for each
// use case: the idempotency of a retried call and the validate-only
// preview are decided here, once.
type Write struct {
	// Procedure names the operation (the Connect procedure): an
	// idempotency key, and the trip id derived from it, are the caller's
	// within one procedure.
	Procedure string
	// Key is the caller's idempotency key; empty means none.
	Key string
	// Fingerprint identifies the request without its key: the same key
	// sent with another request is refused (conflict).
	Fingerprint []byte
	// Respond encodes the answer the key stores, from the outcome of the
	// first call; a replay answers these bytes (Outcome.Answer). Required
	// with Key.
	Respond func(Outcome) ([]byte, error)
	// ValidateOnly previews the write: the same guards, nothing recorded,
	// Outcome.Before and After for the impact.
	ValidateOnly bool
}

// Outcome is what a write did (or, previewed, would do).
type Outcome struct {
	// Trip is the trip written (a new one for the creates).
	Trip uuid.UUID
	// Made is the id the write gave to what it made inside the trip (an
	// analysis, a waypoint); empty for the others.
	Made string
	// Preview is true for a validate-only write: Before is the trip now,
	// After what the write would make of it.
	Preview bool
	Before  trip.State
	// After is the trip after the write.
	After trip.State
	// Replayed is true when the key was answered before: Answer holds the
	// first call's answer (Write.Respond's bytes) and nothing was decided.
	Replayed bool
	Answer   []byte
}

// change is the one path of a caller's write: the preview, or the command
// through the trip store with the caller's metadata and, given a key, the
// idempotency binding that makes a replay answer the first call's answer.
func (p *Planner) change(ctx context.Context, user string, w Write, id uuid.UUID, build tripstore.Build, opts tripstore.Options, made string) (Outcome, error) {
	if w.ValidateOnly {
		l, after, err := p.trips.Preview(ctx, tripstore.User(user), id, build)
		if errors.Is(err, trip.ErrNotFound) {
			p.trips.FinishDeletion(ctx, user, id)
		}
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{Trip: id, Made: made, Preview: true, Before: l.State, After: after}, nil
	}
	opts.Metadata = eventstore.Metadata{Actor: user, CorrelationID: tripstore.CorrelationID(ctx)}
	if w.Key != "" {
		opts.Idempotency = p.idempotency(user, w)
		opts.Respond = func(after trip.State) ([]byte, error) {
			return w.Respond(Outcome{Trip: id, Made: made, After: after})
		}
	}
	res, err := p.trips.ExecuteBuilt(ctx, tripstore.User(user), id, build, opts)
	if err != nil {
		return Outcome{}, err
	}
	if res.Append.Replayed && (len(res.Append.Response) > 0 || !res.Exists) {
		return Outcome{Trip: id, Made: made, Replayed: true, Answer: res.Append.Response}, nil
	}
	return Outcome{Trip: id, Made: made, After: res.State}, nil
}

// command is a Build for a command that needs nothing from the trip.
func command(c trip.Command) tripstore.Build {
	return func(trip.State) (trip.Command, error) { return c, nil }
}

// idempotency binds a key to the caller, the procedure and the request.
func (p *Planner) idempotency(user string, w Write) *eventstore.Idempotency {
	key := sha256.Sum256([]byte(user + "\x00" + w.Procedure + "\x00" + w.Key))
	h := sha256.New()
	h.Write([]byte(w.Procedure + "\x00" + user + "\x00"))
	h.Write(w.Fingerprint)
	return &eventstore.Idempotency{
		Key:         "api:" + uuid.UUID(key[:16]).String(),
		RequestHash: h.Sum(nil),
		ExpiresAt:   p.clock().Add(p.ttl),
	}
}

// derivedID is the id of something a write creates: derived from the
// caller's idempotency key (so a replay lands on the same trip, analysis or
// waypoint), random without one.
func derivedID(user string, w Write) uuid.UUID {
	if w.Key == "" {
		return uuid.New()
	}
	return uuid.NewSHA1(createNamespace, []byte(user+"\x00"+w.Procedure+"\x00"+w.Key))
}

var createNamespace = uuid.MustParse("0b5f3a64-2f0e-5c8a-9a53-6f1f7d9a2c11")

// parseTrip reads a trip id (the API validated it is a UUID).
func parseTrip(id string) (uuid.UUID, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return uuid.Nil, &InvalidError{Field: "tripId", Message: "must be a UUID"}
	}
	return u, nil
}
