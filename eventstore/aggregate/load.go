package aggregate

import (
	"context"
	"errors"
	"fmt"

	"github.com/roadbook/roadbook/eventstore"
)

// Loaded is a stream's folded state with the stream version it was folded to.
type Loaded[S any] struct {
	State S
	// StreamVersion is the version of the last folded event: the expected
	// version of the next append (0 when the stream does not exist).
	StreamVersion int64
	// Exists is false for a stream that has no events yet.
	Exists bool
	// Info is the stream's head row (zero but for ID when it does not exist).
	Info eventstore.StreamInfo
}

// readChunk bounds one ReadStream call, so a long stream never materialises
// in one slice of driver rows.
const readChunk = 1000

// Load folds a stream: the state the definition's cache holds for it, or else
// the newest snapshot of the definition's schema version, when there is one,
// then every event after it. A stream that does
// not exist loads as Initial with Exists false; a deleted one is
// eventstore.ErrStreamDeleted.
func Load[S any](ctx context.Context, store eventstore.Store, def Definition[S], id eventstore.StreamID) (Loaded[S], error) {
	if err := def.validate(); err != nil {
		return Loaded[S]{}, err
	}
	info, tail, err := readHead(ctx, store, def, id)
	switch {
	case errors.Is(err, eventstore.ErrNotFound):
		return Loaded[S]{State: def.Initial(eventstore.StreamInfo{ID: id}), Info: eventstore.StreamInfo{ID: id}}, nil
	case err != nil:
		if def.Cache != nil && errors.Is(err, eventstore.ErrStreamDeleted) {
			def.Cache.forget(id)
		}
		return Loaded[S]{}, err
	}
	return fold(ctx, store, def, info, tail)
}

// LoadFrom is Load for a caller that read the stream's head row itself
// (Store.Stream, for a check of its own): it folds the stream to that row's
// version without reading the row again — nothing at all when the
// definition's cache holds that version, else the events the cache (or a
// snapshot) lacks. The row is as fresh as the one Load would read; a
// deleted or missing stream is the caller's to answer, from the error of
// its own read.
func LoadFrom[S any](ctx context.Context, store eventstore.Store, def Definition[S], info eventstore.StreamInfo) (Loaded[S], error) {
	if err := def.validate(); err != nil {
		return Loaded[S]{}, err
	}
	return fold(ctx, store, def, info, headTail{after: -1})
}

// fold folds the stream info heads: from the cache or a snapshot when they
// serve, then the events after, those read with the head row (tail) first.
func fold[S any](ctx context.Context, store eventstore.Store, def Definition[S], info eventstore.StreamInfo, tail headTail) (Loaded[S], error) {
	var err error
	l := Loaded[S]{State: def.Initial(info), Exists: true, Info: info}
	cached := false
	if c := def.Cache; c != nil {
		if st, v, ok := c.get(info); ok {
			l.State, l.StreamVersion, cached = st, v, true
		}
	}
	// Snapshots are written when an append crosses a multiple of Every
	// (maybeSnapshot), so a shorter stream has none: no read for it.
	if c := def.Snapshots; c != nil && !cached && info.Version >= c.Every {
		snap, err := store.LoadSnapshot(ctx, info.ID, c.SchemaVersion)
		switch {
		case err == nil:
			st, uerr := c.Unmarshal(snap.Data)
			if uerr == nil {
				l.State, l.StreamVersion = st, snap.Version
			}
			// An undecodable snapshot is ignored: events are the truth and
			// the next snapshot replaces it.
		case !errors.Is(err, eventstore.ErrNotFound):
			return Loaded[S]{}, err
		}
	}
	for {
		if l.StreamVersion == info.Version {
			// The cache (or a snapshot) is at the head the row above
			// reported: nothing to read. A write after that row was read is
			// seen by the next Load, as it would be had it come a moment
			// later; an Execute appending at this version finds out by
			// its conflict.
			if def.Cache != nil {
				def.Cache.put(info, l.StreamVersion, l.State)
			}
			return l, nil
		}
		// The tail read with the head row serves when it starts where the
		// fold stands (the cache, or the stream's start, was used).
		events, limit := tail.events, tail.limit
		if tail.after != l.StreamVersion || len(events) == 0 {
			if events, err = store.ReadStream(ctx, info.ID, l.StreamVersion, readChunk); err != nil {
				return Loaded[S]{}, err
			}
			limit = readChunk
		}
		tail = headTail{after: -1}
		for _, e := range events {
			if e.Version != l.StreamVersion+1 {
				return Loaded[S]{}, fmt.Errorf("aggregate: stream %q jumps from version %d to %d", info.ID, l.StreamVersion, e.Version)
			}
			l.State = def.Evolve(l.State, e.Payload)
			l.StreamVersion = e.Version
		}
		if len(events) < limit {
			if def.Cache != nil {
				def.Cache.put(info, l.StreamVersion, l.State)
			}
			return l, nil
		}
	}
}

// headTail is the events read with a stream's head row: those after
// version after, at most limit (after is -1 when none were read).
type headTail struct {
	after  int64
	limit  int
	events []eventstore.RecordedEvent
}

// readHead reads the stream's head row and, from a store that reads both in
// one round trip (eventstore.TailReader), the events a Load is expected to
// fold: those after the cached version, or, with nothing cached, the
// stream's first events — as many as a stream has before its first
// snapshot, since a longer one is folded from its snapshot instead.
func readHead[S any](ctx context.Context, store eventstore.Store, def Definition[S], id eventstore.StreamID) (eventstore.StreamInfo, headTail, error) {
	tr, ok := store.(eventstore.TailReader)
	if !ok {
		info, err := store.Stream(ctx, id)
		return info, headTail{after: -1}, err
	}
	t := headTail{limit: readChunk}
	if v, ok := def.Cache.versionOf(id); ok {
		t.after = v
	} else if c := def.Snapshots; c != nil {
		t.limit = int(min(c.Every, readChunk))
	}
	info, events, err := tr.ReadStreamTail(ctx, id, t.after, t.limit)
	t.events = events
	return info, t, err
}
