package upstream

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
)

// Cache stores successful response bodies by request key for a TTL the
// cache itself enforces. A miss is (nil, false, nil). Errors are advisory:
// the client treats a failing cache as a miss and still answers.
type Cache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Put(ctx context.Context, key string, value []byte) error
}

// LRUCache is the in-process Cache: bounded by entry count, each entry valid
// for ttl. It is the fallback when no NATS KV bucket is configured (tests,
// single process).
type LRUCache struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	now   func() time.Time
	order *list.List
	items map[string]*list.Element
}

type lruEntry struct {
	key     string
	value   []byte
	expires time.Time
}

// NewLRUCache returns a cache of at most maxEntries entries, each kept for
// ttl. Both must be positive.
func NewLRUCache(maxEntries int, ttl time.Duration) (*LRUCache, error) {
	if maxEntries <= 0 {
		return nil, fmt.Errorf("%w: LRU cache size must be positive, got %d", ErrInvalidOption, maxEntries)
	}
	if ttl <= 0 {
		return nil, fmt.Errorf("%w: cache TTL must be positive, got %s", ErrInvalidOption, ttl)
	}
	return &LRUCache{max: maxEntries, ttl: ttl, now: time.Now, order: list.New(), items: map[string]*list.Element{}}, nil
}

// Get implements Cache.
func (c *LRUCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false, nil
	}
	e := el.Value.(*lruEntry)
	if !c.now().Before(e.expires) {
		c.order.Remove(el)
		delete(c.items, key)
		return nil, false, nil
	}
	c.order.MoveToFront(el)
	return e.value, true, nil
}

// Put implements Cache.
func (c *LRUCache) Put(_ context.Context, key string, value []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	exp := c.now().Add(c.ttl)
	if el, ok := c.items[key]; ok {
		e := el.Value.(*lruEntry)
		e.value, e.expires = value, exp
		c.order.MoveToFront(el)
		return nil
	}
	c.items[key] = c.order.PushFront(&lruEntry{key: key, value: value, expires: exp})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*lruEntry).key)
	}
	return nil
}

// Len reports the number of entries (expired ones included until touched).
func (c *LRUCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
