package apiserver

import (
	"context"
	"sync"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/tripstore"
)

// digestCache keeps the last GetTrip answer of each trip, keyed by the
// trip stream's version and the day (the lock depends on today). A read
// then builds no answer while the stream has not moved: a 30-stage trip's
// StagesComputed alone carries every stage geometry as protojson, and
// decoding and mapping it on every read held GetTrip to a few hundred calls
// a second (docs/BENCHMARKS.md). Any append moves the stream version, so a
// stale entry is never served. The version is the one the read's load
// answered (tripstore.Store.Load: the head row and the events after the
// process's cached state, one round trip), so owner and deletion are
// checked exactly as every load checks them.
type digestCache struct {
	once    sync.Once
	entries *lru.Cache[uuid.UUID, cachedDigest]
}

// lru is the cache, made on first use (the zero digestCache is ready).
func (d *digestCache) lru() *lru.Cache[uuid.UUID, cachedDigest] {
	d.once.Do(func() { d.entries, _ = lru.New[uuid.UUID, cachedDigest](digestCacheSize) })
	return d.entries
}

type cachedDigest struct {
	version int64
	today   trip.Date
	digest  *roadbookv1.TripDigest
}

// digestCacheSize bounds the cache; when full, the least recently read
// trip goes (golang-lru), so the trips being read stay cached.
const digestCacheSize = 4096

// get answers the cached digest of trip id when it was folded at stream
// version (the head row the caller just read) today; ok is false on a miss
// (the caller folds).
func (d *digestCache) get(id uuid.UUID, version int64, today trip.Date) (*roadbookv1.TripDigest, bool) {
	e, ok := d.lru().Get(id)
	if !ok || e.today != today || e.version != version {
		return nil, false
	}
	return e.digest, true
}

// put remembers a digest folded at stream version. The message is shared
// between readers and must never be modified after put.
func (d *digestCache) put(id uuid.UUID, version int64, today trip.Date, digest *roadbookv1.TripDigest) {
	d.lru().Add(id, cachedDigest{version: version, today: today, digest: digest})
}

// digest is GetTrip's answer: the cached digest of the caller's trip while
// its stream has not moved, else the trip folded, mapped (and cached). The
// trip is loaded first either way, head row and tail in one round trip:
// under an agent's polling most reads find the stream moved (a worker's
// result landed), and checking the head row on its own first made those
// reads two round trips (head, then the events), for a saving only on the
// reads that found nothing new.
func (s *shared) digest(ctx context.Context, tripID string) (*roadbookv1.TripDigest, error) {
	v := s.view()
	l, err := s.planner.Trip(ctx, tripID)
	if err != nil {
		return nil, err
	}
	id, _ := tripstore.TripID(l.Info.ID)
	if d, ok := s.digests.get(id, l.StreamVersion, v.today); ok {
		return d, nil
	}
	d := v.digest(l.State, &l.Info)
	s.digests.put(id, l.StreamVersion, v.today, d)
	return d, nil
}
