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
// then costs one head query instead of folding every event: a 30-stage
// trip's StagesComputed alone carries every stage geometry as protojson,
// and decoding it on every read held GetTrip to a few hundred calls a
// second (docs/BENCHMARKS.md). Any append moves the stream version, so a
// stale entry is never served; the head row also carries the owner and the
// deleted mark, so visibility is checked exactly as tripstore.Load does
// (tripstore.Store.Head). A miss folds the trip to that same row
// (tripstore.Store.LoadFrom), so no read pays for the head row twice.
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

// has reports whether a digest of trip id is cached for today, whatever
// its version: whether a read should check it against the head row first.
func (d *digestCache) has(id uuid.UUID, today trip.Date) bool {
	e, ok := d.lru().Peek(id)
	return ok && e.today == today
}

// put remembers a digest folded at stream version. The message is shared
// between readers and must never be modified after put.
func (d *digestCache) put(id uuid.UUID, version int64, today trip.Date, digest *roadbookv1.TripDigest) {
	d.lru().Add(id, cachedDigest{version: version, today: today, digest: digest})
}

// digest is GetTrip's answer: the cached digest of the caller's trip while
// its stream has not moved, else the trip folded, mapped (and cached). With
// a digest cached, the head row read to check it is the one the fold
// starts from (planner.TripFrom); with none, the trip is loaded at once,
// head row and tail in one round trip.
func (s *shared) digest(ctx context.Context, tripID string) (*roadbookv1.TripDigest, error) {
	v := s.view()
	var (
		l   tripstore.Loaded
		err error
	)
	if id, perr := uuid.Parse(tripID); perr == nil && !s.digests.has(id, v.today) {
		l, err = s.planner.Trip(ctx, tripID)
	} else {
		head, herr := s.planner.TripHead(ctx, tripID)
		if herr != nil {
			return nil, herr
		}
		id, _ := tripstore.TripID(head.ID)
		if d, ok := s.digests.get(id, head.Version, v.today); ok {
			return d, nil
		}
		l, err = s.planner.TripFrom(ctx, head)
	}
	if err != nil {
		return nil, err
	}
	id, _ := tripstore.TripID(l.Info.ID)
	d := v.digest(l.State, &l.Info)
	s.digests.put(id, l.StreamVersion, v.today, d)
	return d, nil
}
