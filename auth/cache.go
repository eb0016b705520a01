package auth

import (
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Verified-token cache bounds. A busy agent or the MCP service presents the
// same token on every call; checking its signature each time is the largest
// per-call cost of authentication (an ES256 verification is ~100 µs of CPU),
// so a token that verified is remembered for a short while.
const (
	// verifiedTTL is the longest a verification is reused. It is also the
	// longest a token keeps working after its signing key left the key set
	// (JWKS rotation): short, because that is the price of the cache.
	verifiedTTL = time.Minute
	// verifiedCacheSize bounds the memory: ~4096 tokens of ~0.5 KB.
	verifiedCacheSize = 4096
)

// verifiedCache remembers the principals of tokens that verified, until the
// earlier of their expiry and verifiedTTL. Only successes are cached: a
// refused token is checked again each time, so a refusal never outlives its
// cause and garbage tokens cannot fill the cache. When full, the least
// recently used token goes (golang-lru): the busy callers stay cached.
type verifiedCache struct {
	once    sync.Once
	entries *lru.Cache[string, verifiedEntry]
}

// lru is the cache, made on first use (the zero verifiedCache is ready).
func (c *verifiedCache) lru() *lru.Cache[string, verifiedEntry] {
	c.once.Do(func() { c.entries, _ = lru.New[string, verifiedEntry](verifiedCacheSize) })
	return c.entries
}

type verifiedEntry struct {
	p     Principal
	until time.Time
}

// get returns the cached principal of token if it is still valid at now.
func (c *verifiedCache) get(token string, now time.Time) (Principal, bool) {
	e, ok := c.lru().Get(token)
	if !ok || !now.Before(e.until) {
		return Principal{}, false
	}
	return e.p, true
}

// put remembers p for token until the earlier of expires and now+verifiedTTL.
// When the cache is full, the least recently used token goes.
func (c *verifiedCache) put(token string, p Principal, now, expires time.Time) {
	until := now.Add(verifiedTTL)
	if !expires.IsZero() && expires.Before(until) {
		until = expires
	}
	if !now.Before(until) {
		return
	}
	c.lru().Add(token, verifiedEntry{p: p, until: until})
}
