package tools

import "sync"

// Arguments that passed validation are remembered, per tool, so the same
// small call (an agent polling get_trip with {"tripId": …} every two
// seconds) is not judged against the schema again: validation is a pure
// function of the schema and the bytes, and it was ~5 % of the service's
// CPU under bench-mcp. Only successes are kept, only for short arguments,
// and the set is bounded; refusals are always judged afresh, so their
// messages never come from a cache.
const (
	// validCacheMaxArgBytes: larger arguments (inline GPX, settings) are
	// validated every time; they are rarely repeated byte for byte.
	validCacheMaxArgBytes = 512
	// validCacheSize bounds the remembered arguments per tool.
	validCacheSize = 4096
)

// validCache is the set of argument byte strings a tool accepted.
type validCache struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// has reports whether raw was accepted before.
func (c *validCache) has(raw []byte) bool {
	if c == nil || len(raw) > validCacheMaxArgBytes {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.seen[string(raw)]
	return ok
}

// add remembers that raw was accepted; when the set is full it starts over.
func (c *validCache) add(raw []byte) {
	if c == nil || len(raw) > validCacheMaxArgBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil || len(c.seen) >= validCacheSize {
		c.seen = make(map[string]struct{})
	}
	c.seen[string(raw)] = struct{}{}
}
