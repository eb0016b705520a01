package tripstore

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"google.golang.org/protobuf/proto"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// Store runs trip commands against an event store.
type Store struct {
	events eventstore.Store
	now    func() time.Time
	log    *slog.Logger
	// def is Definition with this Store's own state cache: caches are
	// per store, so two stores in one process (tests, one per schema)
	// never share a trip's state.
	def aggregate.Definition[trip.State]
	// lines keeps measured routes by content hash (RouteLine).
	lines *lru.Cache[string, route.Line]
}

// Option adjusts a Store.
type Option func(*Store)

// WithLogger sets where the store logs what it cannot report to a caller
// whose write stood (a collection generation not recorded, a deleted trip's
// streams not removed yet). Default: discard.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// New returns a Store over events. now is the injectable clock that decides
// locks and idempotency expiry (nil: time.Now).
func New(events eventstore.Store, now func() time.Time, opts ...Option) *Store {
	if now == nil {
		now = time.Now
	}
	def := Definition
	// Cannot fail: the size is positive and the clone is set.
	def.Cache, _ = aggregate.NewStateCache(StateCacheSize, trip.State.Clone)
	// Cannot fail: the size is positive.
	lines, _ := lru.New[string, route.Line](RouteLineCacheSize)
	s := &Store{events: events, now: now, def: def, lines: lines, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(s)
	}
	return s
}

// StateCacheSize is how many trips' folded states one Store keeps
// (aggregate.StateCache): a worker job reloads its trip for every step it
// records, and the API for every write. A 30-stage trip's state holds its
// stages' geometry, tens of kilobytes to a few megabytes for the longest
// routes, so a few hundred bound the memory.
const StateCacheSize = 256

// RouteLineCacheSize is how many measured routes one Store keeps
// (RouteLine): a long route's Line is a few megabytes (40,000 points and as
// many distances), and the routes being edited at one moment are few.
const RouteLineCacheSize = 16

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

// LoadAtLeast is Load for a worker that knows which event set its job off
// (the trip's stream version at that event): the state this Store holds in
// its cache when it is at least that new — the relay in the worker's
// process hands the cache what it publishes (Observe) — without a read,
// else Load. It need not be the newest state: only a decision whose append
// expects its version exactly may use it, as Execute's first attempt does
// on the same cached state, so a trip that moved on refuses the append and
// the decision is taken again on what is stored.
func (s *Store) LoadAtLeast(ctx context.Context, actor Actor, tripID uuid.UUID, version int64) (Loaded, error) {
	if l, ok := aggregate.PeekAtLeast(s.def, StreamID(tripID), version); ok && visible(actor, l) == nil {
		return l, nil
	}
	return s.Load(ctx, actor, tripID)
}

// Observe hands this Store's state cache the trip events of a feed page
// (aggregate.Observe): the worker's relay calls it with every page it
// publishes, so the jobs those events set off find their trip folded
// (LoadAtLeast).
func (s *Store) Observe(page eventstore.FeedPage) {
	aggregate.Observe(s.def, page, func(id eventstore.StreamID) bool {
		_, ok := TripID(id)
		return ok
	})
}

// Options shape one Execute.
type Options struct {
	// Metadata is attached to every event (correlation, causation, trace).
	// A nil Metadata.Trace is filled from the span in Execute's context
	// (W3C traceparent), so appends inside a traced call carry its trace.
	Metadata eventstore.Metadata
	// EventID derives event ids for idempotent workers (see aggregate.Options).
	EventID func(i int) uuid.UUID
	// Idempotency makes a replay answer the first result
	// (Result.Append.Replayed): the append answers a key already recorded
	// instead of appending, and a command refused or with nothing to do
	// asks the store for the key before it says so (replay).
	Idempotency *eventstore.Idempotency
	// BlobRefs are route blobs the trip references from now on.
	BlobRefs [][]byte
	// Respond, when set with Idempotency, computes the answer stored with the
	// idempotency key from the state after the command, on every attempt,
	// so a replay answers exactly what the first call answered.
	Respond func(after trip.State) ([]byte, error)
	// Collection, when set, is how the write changes the actor's trip
	// collection: once its events are appended (not replayed), the user's
	// collection stream records the change (collection.go).
	Collection eventsv1.CollectionChange
	// Creates says the command creates the trip (Create, Duplicate): the
	// first attempt appends without reading the stream, which does not
	// exist yet (aggregate.Options.Creates). Execute sets it for those
	// commands itself; ExecuteBuilt callers say so.
	Creates bool
}

// Build makes a command from the trip as loaded, for commands that need
// what only the trip knows (an edit that cuts at a distance walks the
// route's points, read from the blob its route names). It may run more than
// once, on a stream conflict.
type Build func(trip.State) (trip.Command, error)

// Result is what Execute did.
type Result = aggregate.Result[trip.State]

// Execute decides cmd against the newest state of the trip and appends the
// events, retrying internally when a worker's result lands in between. The
// caller sees the trip's own refusals (*trip.Error) and nothing of stream
// versions.
func (s *Store) Execute(ctx context.Context, actor Actor, tripID uuid.UUID, cmd trip.Command, opts Options) (Result, error) {
	switch cmd.(type) {
	case trip.Create, trip.Duplicate:
		opts.Creates = true
	}
	return s.ExecuteBuilt(ctx, actor, tripID, func(trip.State) (trip.Command, error) { return cmd, nil }, opts)
}

// ExecuteBuilt is Execute for a command built from the trip as loaded (one
// load, one fold: build reads the state Execute decides on).
func (s *Store) ExecuteBuilt(ctx context.Context, actor Actor, tripID uuid.UUID, build Build, opts Options) (Result, error) {
	now := s.now()
	owner := actor.User
	rule := func(l Loaded) ([]proto.Message, error) {
		if l.Exists {
			if err := visible(actor, l); err != nil {
				return nil, err
			}
		}
		cmd, err := build(l.State)
		if err != nil {
			return nil, err
		}
		events, err := trip.Decide(l.State, cmd, now)
		if err != nil || opts.Respond == nil || opts.Idempotency == nil || len(events) == 0 {
			return events, err
		}
		resp, err := opts.Respond(evolve(l.State, events))
		if err != nil {
			return nil, err
		}
		opts.Idempotency.Response = resp
		return events, nil
	}
	res, err := aggregate.Execute(ctx, s.events, s.def, StreamID(tripID), rule, aggregate.Options{
		Owner:       owner,
		Metadata:    withTrace(ctx, opts.Metadata),
		EventID:     opts.EventID,
		Idempotency: opts.Idempotency,
		BlobRefs:    opts.BlobRefs,
		Creates:     opts.Creates,
	})
	if err != nil {
		res, err = Result{}, translate(err)
	}
	if opts.Idempotency != nil && (err != nil || len(res.Events) == 0) {
		// Refused, or nothing to do: a retry of a call that acted gets
		// the first answer (replay).
		res, err = s.answered(ctx, opts.Idempotency, res, err)
	}
	if err != nil {
		return Result{}, err
	}
	if opts.Collection != eventsv1.CollectionChange_COLLECTION_CHANGE_UNSPECIFIED && len(res.Events) > 0 && !res.Append.Replayed {
		s.recordCollectionChange(ctx, actor.User, tripID, opts.Collection)
	}
	return res, nil
}

// Preview decides the command build makes on the actor's trip without
// writing: the same guards as Execute (visibility, lock, precondition,
// version), then the state the events would fold to. It answers the trip as
// loaded and that state.
func (s *Store) Preview(ctx context.Context, actor Actor, tripID uuid.UUID, build Build) (Loaded, trip.State, error) {
	l, err := s.Load(ctx, actor, tripID)
	if err != nil {
		return Loaded{}, trip.State{}, err
	}
	cmd, err := build(l.State)
	if err != nil {
		return Loaded{}, trip.State{}, err
	}
	events, err := trip.Decide(l.State, cmd, s.now())
	if err != nil {
		return Loaded{}, trip.State{}, err
	}
	return l, evolve(l.State, events), nil
}

// evolve folds events into s.
func evolve(s trip.State, events []proto.Message) trip.State {
	for _, e := range events {
		s = trip.Evolve(s, e)
	}
	return s
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

// errKeyReused is an idempotency key sent again with another request.
var errKeyReused = &trip.Error{Code: trip.CodeConflict, Reason: "idempotency_key_reused",
	Message: "this idempotency key was used for a different request"}

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
		return errKeyReused
	default:
		return err
	}
}
