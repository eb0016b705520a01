package aggregate

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/roadbook/roadbook/eventstore"
	"google.golang.org/protobuf/proto"
)

// Rule is a command's rule: given the loaded state it returns the events to
// append (none: nothing to do) or a rule error, which Execute returns as is.
// It may run more than once, after a stream conflict, so it must be pure.
// (A domain's Decide is what a Rule usually calls.)
type Rule[S any] func(Loaded[S]) ([]proto.Message, error)

// Options shape one Execute call.
type Options struct {
	// Owner is recorded on stream creation and checked afterwards.
	Owner string
	// Metadata is attached to every appended event.
	Metadata eventstore.Metadata
	// EventID, when set, derives the id of the i-th appended event, so a
	// redelivered job appends nothing new (the store refuses the duplicate).
	EventID func(i int) uuid.UUID
	// Idempotency makes a replayed call answer the first result.
	Idempotency *eventstore.Idempotency
	// BlobRefs are content hashes the stream references from now on.
	BlobRefs [][]byte
	// MaxAttempts bounds the retries on stream conflicts (default 16).
	MaxAttempts int
	// Creates says the command creates the stream: the first attempt
	// decides on the initial state and appends expecting no stream, without
	// reading it first (a stream that exists already refuses that append,
	// and the attempt after it loads the stream as usual).
	Creates bool
}

// Result is what Execute did.
type Result[S any] struct {
	// Loaded is the state after the command (or as loaded, when the
	// decision appended nothing).
	Loaded[S]
	// Events are the appended payloads (nil when nothing was appended).
	Events []proto.Message
	// Append is the store's answer (zero when nothing was appended).
	Append eventstore.AppendResult
}

// ErrTooManyConflicts is returned when every attempt lost the race for the
// stream; it is transient (retry later), unlike a rule error.
var ErrTooManyConflicts = errors.New("aggregate: stream kept changing; gave up after the last attempt")

// Execute runs the rule on the stream's state and appends its events at
// that state's version, retrying the whole cycle when another writer moved
// the stream in between.
//
// The first attempt decides without reading the stream when it can: on the
// state the definition's cache holds (the version this process appended or
// folded last), or, with Options.Creates, on the initial state of a stream
// that does not exist yet. Its append expects that version exactly (no
// stream at all for a creation), so the store checks the guess in the same
// round trip that writes: a stream that moved on, was deleted or belongs to
// someone else refuses it, and Execute then loads the stream and decides
// again, as it always did. A guess is never the last word either way: a rule
// that refuses the guessed state, or finds nothing to do, is asked again on
// the loaded stream, so a refusal always judges the stream as stored. A
// worker recording a job's steps, or a rider editing their own trip, pays one
// round trip per write instead of two (the head row, then the append).
func Execute[S any](ctx context.Context, store eventstore.Store, def Definition[S], id eventstore.StreamID, rule Rule[S], opts Options) (Result[S], error) {
	attempts := opts.MaxAttempts
	if attempts <= 0 {
		attempts = 16
	}
	guess, guessed := guessState(def, id, opts)
	for attempt := 0; attempt < attempts; attempt++ {
		loaded := guess
		if !guessed {
			var err error
			if loaded, err = Load(ctx, store, def, id); err != nil {
				return Result[S]{}, err
			}
		}
		events, err := rule(loaded)
		if guessed && (err != nil || len(events) == 0) {
			guessed, attempt = false, attempt-1 // judge the stream as stored
			continue
		}
		if err != nil {
			return Result[S]{}, err
		}
		if len(events) == 0 {
			return Result[S]{Loaded: loaded}, nil
		}
		after := loaded
		for _, e := range events {
			after.State = def.Evolve(after.State, e)
		}
		req := eventstore.AppendRequest{
			Stream:      id,
			Expected:    eventstore.Exact(loaded.StreamVersion),
			Events:      make([]eventstore.NewEvent, len(events)),
			Owner:       opts.Owner,
			BlobRefs:    opts.BlobRefs,
			Idempotency: opts.Idempotency,
		}
		if !loaded.Exists {
			req.Expected = eventstore.NoStream()
		}
		for i, e := range events {
			req.Events[i] = eventstore.NewEvent{Payload: e, Metadata: opts.Metadata}
			if opts.EventID != nil {
				req.Events[i].ID = opts.EventID(i)
			}
		}
		if def.Summary != nil {
			req.Summary = def.Summary(after.State)
		}
		res, err := store.Append(ctx, req)
		if guessed && refusesGuess(err) {
			guessed, attempt = false, attempt-1 // the guess was wrong: load
			continue
		}
		if errors.Is(err, eventstore.ErrVersionConflict) {
			if err := backoff(ctx, attempt); err != nil {
				return Result[S]{}, err
			}
			continue
		}
		if err != nil {
			return Result[S]{}, err
		}
		if res.Replayed {
			// The first call's answer stands; report the state as it is now.
			now, err := Load(ctx, store, def, id)
			if err != nil {
				return Result[S]{}, err
			}
			return Result[S]{Loaded: now, Append: res}, nil
		}
		after.StreamVersion, after.Exists = res.Version, true
		maybeSnapshot(ctx, store, def, id, loaded.StreamVersion, after)
		if def.Cache != nil && loaded.Exists {
			def.Cache.put(loaded.Info, after.StreamVersion, after.State)
		}
		return Result[S]{Loaded: after, Events: events, Append: res}, nil
	}
	return Result[S]{}, ErrTooManyConflicts
}

// guessState is the state Execute's first attempt decides on without
// reading the stream: the cached one, or the initial state of a stream the
// caller says the command creates. ok is false when there is no guess.
func guessState[S any](def Definition[S], id eventstore.StreamID, opts Options) (Loaded[S], bool) {
	if def.Cache != nil {
		if st, v, info, ok := def.Cache.peek(id); ok {
			return Loaded[S]{State: st, StreamVersion: v, Exists: true, Info: info}, true
		}
	}
	if opts.Creates {
		info := eventstore.StreamInfo{ID: id}
		return Loaded[S]{State: def.Initial(info), Info: info}, true
	}
	return Loaded[S]{}, false
}

// refusesGuess reports an append refused because of what the stream is:
// at another version, deleted, or someone else's. After a guess, each only
// means the guess was wrong, and the loaded stream decides (and, when it is
// the stream's own answer, says so again).
func refusesGuess(err error) bool {
	return errors.Is(err, eventstore.ErrVersionConflict) || errors.Is(err, eventstore.ErrStreamDeleted) ||
		errors.Is(err, eventstore.ErrOwnerMismatch)
}

// backoff waits a little, with jitter, so racers on a hot stream spread out.
func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(1+rand.IntN(1<<min(attempt, 5))) * time.Millisecond
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// maybeSnapshot stores a snapshot when the append crossed a multiple of
// Every. It is best effort: a failed snapshot only means the next load folds
// a longer tail, so its error is deliberately dropped.
func maybeSnapshot[S any](ctx context.Context, store eventstore.Store, def Definition[S], id eventstore.StreamID, before int64, after Loaded[S]) {
	c := def.Snapshots
	if c == nil || after.StreamVersion/c.Every == before/c.Every {
		return
	}
	data, err := c.Marshal(after.State)
	if err != nil {
		return
	}
	_ = store.SaveSnapshot(ctx, eventstore.Snapshot{Stream: id, Version: after.StreamVersion, SchemaVersion: c.SchemaVersion, Data: data})
}
