package tripstore

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
	"google.golang.org/protobuf/proto"
)

// Store runs trip commands against an event store.
type Store struct {
	events eventstore.Store
	now    func() time.Time
	// def is Definition with this Store's own state cache: caches are
	// per store, so two stores in one process (tests, one per schema)
	// never share a trip's state.
	def aggregate.Definition[trip.State]
}

// New returns a Store over events. now is the injectable clock that decides
// locks and idempotency expiry (nil: time.Now).
func New(events eventstore.Store, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	def := Definition
	// Cannot fail: the size is positive and the clone is set.
	def.Cache, _ = aggregate.NewStateCache(StateCacheSize, trip.State.Clone)
	return &Store{events: events, now: now, def: def}
}

// StateCacheSize is how many trips' folded states one Store keeps
// (aggregate.StateCache): a worker job reloads its trip for every step it
// records, and the API for every write. A 30-stage trip's state holds its
// stages' geometry, tens of kilobytes to a few megabytes for the longest
// routes, so a few hundred bound the memory.
const StateCacheSize = 256

// Events is the underlying event store (for feeds, blobs and lists).
func (s *Store) Events() eventstore.Store { return s.events }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// Actor is who runs a command: a user, who must own the trip, or the system
// (a worker recording a result), which acts on any trip.
type Actor struct {
	User   string
	System bool
}

// User is the actor for a user's command.
func User(id string) Actor { return Actor{User: id} }

// System is the actor for workers' results.
func System() Actor { return Actor{System: true} }

// Loaded is a trip as folded, with its stream version.
type Loaded = aggregate.Loaded[trip.State]

// Load folds a trip. A trip that does not exist, was deleted or belongs to
// someone else is trip.ErrNotFound — the same error, so ids are no oracle.
func (s *Store) Load(ctx context.Context, actor Actor, tripID uuid.UUID) (Loaded, error) {
	l, err := aggregate.Load(ctx, s.events, s.def, StreamID(tripID))
	if err != nil {
		return Loaded{}, translate(err)
	}
	if err := visible(actor, l); err != nil {
		return Loaded{}, err
	}
	return l, nil
}

// Options shape one Execute.
type Options struct {
	// Metadata is attached to every event (correlation, causation, trace).
	// A nil Metadata.Trace is filled from the span in Execute's context
	// (W3C traceparent), so appends inside a traced call carry its trace.
	Metadata eventstore.Metadata
	// EventID derives event ids for idempotent workers (see aggregate.Options).
	EventID func(i int) uuid.UUID
	// Idempotency makes a replay answer the first result.
	Idempotency *eventstore.Idempotency
	// BlobRefs are route blobs the trip references from now on.
	BlobRefs [][]byte
	// Extra, when set, appends more events after the command's own in the
	// same transaction (e.g. an upload's RouteImported with its TripCreated).
	Extra func(after trip.State) ([]proto.Message, error)
	// Respond, when set with Idempotency, computes the answer stored with the
	// idempotency key from the state after the command, on every attempt,
	// so a replay answers exactly what the first call answered.
	Respond func(after trip.State) ([]byte, error)
}

// Result is what Execute did.
type Result = aggregate.Result[trip.State]

// Execute decides cmd against the newest state of the trip and appends the
// events, retrying internally when a worker's result lands in between. The
// caller sees the trip's own refusals (*trip.Error) and nothing of stream
// versions.
func (s *Store) Execute(ctx context.Context, actor Actor, tripID uuid.UUID, cmd trip.Command, opts Options) (Result, error) {
	now := s.now()
	owner := actor.User
	decide := func(l Loaded) ([]proto.Message, error) {
		if l.Exists {
			if err := visible(actor, l); err != nil {
				return nil, err
			}
		}
		events, err := trip.Decide(l.State, cmd, now)
		if err != nil || (opts.Extra == nil && opts.Respond == nil) {
			return events, err
		}
		after := l.State
		for _, e := range events {
			after = trip.Evolve(after, e)
		}
		if opts.Extra != nil {
			more, err := opts.Extra(after)
			if err != nil {
				return nil, err
			}
			for _, e := range more {
				after = trip.Evolve(after, e)
			}
			events = append(events, more...)
		}
		if opts.Respond != nil && opts.Idempotency != nil && len(events) > 0 {
			resp, err := opts.Respond(after)
			if err != nil {
				return nil, err
			}
			opts.Idempotency.Response = resp
		}
		return events, nil
	}
	res, err := aggregate.Execute(ctx, s.events, s.def, StreamID(tripID), decide, aggregate.Options{
		Owner:       owner,
		Metadata:    withTrace(ctx, opts.Metadata),
		EventID:     opts.EventID,
		Idempotency: opts.Idempotency,
		BlobRefs:    opts.BlobRefs,
	})
	if err != nil {
		return Result{}, translate(err)
	}
	return res, nil
}

// visible hides a trip from anyone but its owner and the system, with the
// same error as a missing one.
func visible(actor Actor, l Loaded) error {
	if !l.Exists || l.State.Deleted {
		return notFound()
	}
	if !actor.System && l.Info.Owner != actor.User {
		return notFound()
	}
	return nil
}

func notFound() error {
	return &trip.Error{Code: trip.CodeNotFound, Message: "no such trip"}
}

// translate is the one place where store errors become trip errors: a
// deleted or foreign stream is not found, a reused idempotency key is a
// conflict. Other errors (duplicate derived event ids, infrastructure
// failures, ErrTooManyConflicts) pass through for the caller's boundary.
func translate(err error) error {
	switch {
	case errors.Is(err, eventstore.ErrStreamDeleted), errors.Is(err, eventstore.ErrOwnerMismatch):
		return notFound()
	case errors.Is(err, eventstore.ErrIdempotencyMismatch):
		return &trip.Error{Code: trip.CodeConflict, Reason: "idempotency_key_reused",
			Message: "this idempotency key was used for a different request"}
	default:
		return err
	}
}
