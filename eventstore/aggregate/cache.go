package aggregate

import (
	"container/list"
	"errors"
	"sync"
	"time"

	"github.com/roadbook/roadbook/eventstore"
)

// StateCache keeps the states this process folded last, per stream, so the
// next Load of a stream folds only the events appended since. A worker job
// loads its trip once per step it records, and every load used to decode the
// whole stream again (route geometry included): half of the worker's CPU in
// the 10-minute soak. The store stays the truth: every Load still reads the
// stream's head row (LoadFrom is handed one its caller just read), so a
// deletion is seen, and folds whatever the cached
// version lacks, so writes by other replicas are seen as before; an Execute
// that decides on the cached state without reading (its optimistic first
// attempt) appends at exactly the cached version, which the store refuses
// if the stream moved on. A relay fills it with what it hands on (Observe),
// and a worker decides on that without reading (PeekAtLeast), under the same
// rule.
//
// States are handed out through Clone, so a caller that changes the state it
// loaded cannot change what the next Load starts from.
type StateCache[S any] struct {
	clone func(S) S
	max   int

	mu      sync.Mutex
	order   *list.List // front: most recently used
	entries map[eventstore.StreamID]*list.Element
}

// cachedState is one stream's folded state at a stream version. created
// identifies the stream's incarnation (its head row's creation time); info
// is the head row the state was last checked against (owner, creation),
// what an optimistic Execute decides with (peek).
type cachedState[S any] struct {
	id      eventstore.StreamID
	created time.Time
	info    eventstore.StreamInfo
	version int64
	state   S
}

// NewStateCache keeps up to max streams' states; clone copies a state deeply
// enough that changing the copy leaves the original untouched.
func NewStateCache[S any](max int, clone func(S) S) (*StateCache[S], error) {
	if max < 1 || clone == nil {
		return nil, errors.New("aggregate: a state cache needs max ≥ 1 and a clone function")
	}
	return &StateCache[S]{clone: clone, max: max, order: list.New(), entries: map[eventstore.StreamID]*list.Element{}}, nil
}

// Len is the number of streams cached.
func (c *StateCache[S]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// get returns a copy of the cached state of the stream info describes and
// its version, when one is cached for this incarnation (its creation time
// and owner, what Initial was given) and not ahead of the head (a head
// behind the cache means the cache is wrong: it is dropped).
func (c *StateCache[S]) get(info eventstore.StreamInfo) (S, int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero S
	el, ok := c.entries[info.ID]
	if !ok {
		return zero, 0, false
	}
	e := el.Value.(*cachedState[S])
	if !e.created.Equal(info.CreatedAt) || e.info.Owner != info.Owner || e.version > info.Version {
		c.order.Remove(el)
		delete(c.entries, info.ID)
		return zero, 0, false
	}
	c.order.MoveToFront(el)
	return c.clone(e.state), e.version, true
}

// peek returns a copy of the cached state of stream id, its version and the
// head row it was cached with, without a head row to check it against: what
// Execute's optimistic first attempt decides on. Its append, expecting that
// version exactly, is the check: a stream that moved on refuses it.
func (c *StateCache[S]) peek(id eventstore.StreamID) (S, int64, eventstore.StreamInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero S
	el, ok := c.entries[id]
	if !ok {
		return zero, 0, eventstore.StreamInfo{}, false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*cachedState[S])
	return c.clone(e.state), e.version, e.info, true
}

// versionOf is the version of the state cached for stream id, if one is: where
// a Load that expects to use it reads the stream's tail from.
// A nil cache has none.
func (c *StateCache[S]) versionOf(id eventstore.StreamID) (int64, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[id]
	if !ok {
		return 0, false
	}
	return el.Value.(*cachedState[S]).version, true
}

// put remembers a copy of state at version, unless a newer one is cached.
func (c *StateCache[S]) put(info eventstore.StreamInfo, version int64, state S) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[info.ID]; ok {
		e := el.Value.(*cachedState[S])
		if e.created.Equal(info.CreatedAt) && e.version >= version {
			c.order.MoveToFront(el)
			return
		}
		e.created, e.info, e.version, e.state = info.CreatedAt, info, version, c.clone(state)
		c.order.MoveToFront(el)
		return
	}
	c.entries[info.ID] = c.order.PushFront(&cachedState[S]{id: info.ID, created: info.CreatedAt, info: info, version: version, state: c.clone(state)})
	c.evict()
}

// has reports whether anything is cached for stream id.
func (c *StateCache[S]) has(id eventstore.StreamID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[id]
	return ok
}

// at returns a copy of the state cached for stream id and its head row,
// when it is at exactly version.
func (c *StateCache[S]) at(id eventstore.StreamID, version int64) (S, eventstore.StreamInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero S
	el, ok := c.entries[id]
	if !ok || el.Value.(*cachedState[S]).version != version {
		return zero, eventstore.StreamInfo{}, false
	}
	e := el.Value.(*cachedState[S])
	return c.clone(e.state), e.info, true
}

// advance caches state at info.Version for the stream info names when the
// cache still holds it at version from (from 0: holds nothing for it): the
// compare-and-set of Observe, which folds outside the lock. A state a load
// or an append of this process put meanwhile is as new or newer, and stays.
func (c *StateCache[S]) advance(info eventstore.StreamInfo, from int64, state S) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[info.ID]
	switch {
	case from == 0 && ok, from > 0 && (!ok || el.Value.(*cachedState[S]).version != from):
		return
	case ok:
		e := el.Value.(*cachedState[S])
		e.info, e.version, e.state = info, info.Version, c.clone(state)
		c.order.MoveToFront(el)
		return
	}
	c.entries[info.ID] = c.order.PushFront(&cachedState[S]{id: info.ID, created: info.CreatedAt, info: info, version: info.Version, state: c.clone(state)})
	c.evict()
}

// evict drops the least recently used states beyond max.
func (c *StateCache[S]) evict() {
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*cachedState[S]).id)
	}
}

// forget drops a stream (deleted).
func (c *StateCache[S]) forget(id eventstore.StreamID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[id]; ok {
		c.order.Remove(el)
		delete(c.entries, id)
	}
}
