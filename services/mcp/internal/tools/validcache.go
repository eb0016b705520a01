package tools

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

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

// validCache is the set of argument byte strings a tool accepted, the
// least recently seen going first when full (golang-lru): the arguments
// agents keep polling with stay remembered.
type validCache struct {
	once sync.Once
	seen *lru.Cache[string, struct{}]
}

// lru is the set, made on first use (the zero validCache is ready).
func (c *validCache) lru() *lru.Cache[string, struct{}] {
	c.once.Do(func() { c.seen, _ = lru.New[string, struct{}](validCacheSize) })
	return c.seen
}

// has reports whether raw was accepted before.
func (c *validCache) has(raw []byte) bool {
	if c == nil || len(raw) > validCacheMaxArgBytes {
		return false
	}
	_, ok := c.lru().Get(string(raw))
	return ok
}

// add remembers that raw was accepted.
func (c *validCache) add(raw []byte) {
	if c == nil || len(raw) > validCacheMaxArgBytes {
		return
	}
	c.lru().Add(string(raw), struct{}{})
}
