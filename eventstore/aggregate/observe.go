package aggregate

import "github.com/roadbook/roadbook/eventstore"

// Observe hands the definition's cache the events of a feed page, in feed
// order (each stream's versions ascending), so that the process that relays
// them holds what they fold to: a stream cached at the version before an
// event moves on to the event's version, and a stream that begins in the
// page (version 1, its owner in page.Owners) is cached from its initial
// state. Everything else is left alone: a stream this process never folded,
// a gap (the cache missed an event, or already holds a newer state), an
// event it cannot decode. keep selects the definition's streams (the feed
// carries every aggregate's).
//
// Why: a job is set off by an event its worker's process has just relayed,
// and the job's first read was the stream it had just handed on: 0.57 ms
// of a 5.77 ms pipeline hop (docs/BENCHMARKS.md, "Eighth session"). The
// cached state is what Load would fold at that version (the same events
// through the same Evolve, from the same Initial with the same owner), and
// a decision taken on it is a guess like every cached one: its append
// expects the version exactly (PeekAtLeast, Execute), so a stream that
// moved on refuses it and the decision is taken again on what is stored.
// Events this process appended itself are cached already, and are not
// decoded again.
func Observe[S any](def Definition[S], page eventstore.FeedPage, keep func(eventstore.StreamID) bool) {
	c := def.Cache
	if c == nil {
		return
	}
	for _, ev := range page.Events {
		if !keep(ev.StreamID) {
			continue
		}
		var (
			base S
			info eventstore.StreamInfo
			ok   bool
		)
		if ev.Version == 1 {
			owner, named := page.Owners[ev.StreamID]
			if !named {
				continue
			}
			info = eventstore.StreamInfo{ID: ev.StreamID, Owner: owner, CreatedAt: ev.RecordedAt, UpdatedAt: ev.RecordedAt}
			base, ok = def.Initial(info), !c.has(ev.StreamID)
		} else {
			base, info, ok = c.at(ev.StreamID, ev.Version-1)
		}
		if !ok {
			continue
		}
		payload := ev.Payload
		if payload == nil {
			p, err := eventstore.DecodePayload(ev.Type, ev.Data)
			if err != nil {
				continue // the stream stays where it was; a load reads it
			}
			payload = p
		}
		info.Version, info.UpdatedAt = ev.Version, ev.RecordedAt
		c.advance(info, ev.Version-1, def.Evolve(base, payload))
	}
}

// PeekAtLeast is the state the definition's cache holds for stream id when
// it is at version atLeast or later (atLeast ≥ 1), without reading the
// store: for a worker whose job the event at atLeast set off (the relay
// having handed it on, Observe). It need not be the newest state, so it
// serves only a decision whose append expects its version exactly, as
// Execute's first attempt does on the same cached state; ok is false when
// nothing that new is cached.
func PeekAtLeast[S any](def Definition[S], id eventstore.StreamID, atLeast int64) (Loaded[S], bool) {
	if def.Cache == nil || atLeast < 1 {
		return Loaded[S]{}, false
	}
	st, v, info, ok := def.Cache.peek(id)
	if !ok || v < atLeast {
		return Loaded[S]{}, false
	}
	return Loaded[S]{State: st, StreamVersion: v, Exists: true, Info: info}, true
}
