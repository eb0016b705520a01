package geocode

import (
	"context"
	"sync/atomic"
)

// cacheNote collects, for one request, whether each lookup was cached.
type cacheNote struct{ hits, misses atomic.Int32 }

type cacheNoteKey struct{}

// withCacheNote returns a context lookups can report their cache use to.
func withCacheNote(ctx context.Context) (context.Context, *cacheNote) {
	n := &cacheNote{}
	return context.WithValue(ctx, cacheNoteKey{}, n), n
}

// NoteCache records that a lookup made for ctx was answered from a cache
// (cached) or by the provider. Geocoders backed by a cache call it; a
// context without a note ignores it.
func NoteCache(ctx context.Context, cached bool) {
	n, ok := ctx.Value(cacheNoteKey{}).(*cacheNote)
	if !ok {
		return
	}
	if cached {
		n.hits.Add(1)
	} else {
		n.misses.Add(1)
	}
}

// hit is true when every lookup was cached (and there was at least one).
func (n *cacheNote) hit() bool { return n.hits.Load() > 0 && n.misses.Load() == 0 }
