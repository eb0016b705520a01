package apiserver

import (
	"context"
	"sync"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/planner"
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
// deleted mark, so visibility is checked exactly as tripstore.Load does.
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

// get answers the cached digest of user's trip id when the stream is still
// at the cached version; ok is false on a miss (the caller folds).
func (d *digestCache) get(ctx context.Context, events eventstore.Store, user string, id uuid.UUID, today trip.Date) (*roadbookv1.TripDigest, bool) {
	e, ok := d.lru().Get(id)
	if !ok || e.today != today {
		return nil, false
	}
	info, err := events.Stream(ctx, tripstore.StreamID(id))
	if err != nil || info.Owner != user || tripstore.RowDeleted(info) || info.Version != e.version {
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
// its stream has not moved, else the trip folded and mapped (and cached).
func (s *shared) digest(ctx context.Context, tripID string) (*roadbookv1.TripDigest, error) {
	user, err := planner.Caller(ctx)
	if err != nil {
		return nil, err
	}
	id, err := uuid.Parse(tripID)
	if err != nil {
		return nil, &planner.InvalidError{Field: "tripId", Message: "must be a UUID"}
	}
	v := s.view()
	if d, ok := s.digests.get(ctx, s.cfg.Store, user, id, v.today); ok {
		return d, nil
	}
	l, err := s.planner.Trip(ctx, tripID)
	if err != nil {
		return nil, err
	}
	d := v.digest(l.State, &l.Info)
	s.digests.put(id, l.StreamVersion, v.today, d)
	return d, nil
}
