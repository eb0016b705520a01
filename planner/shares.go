package planner

import (
	"context"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

// Share gives the caller's trip a public link (DOMAIN §8). A fresh code is
// indexed first (the index is how a public read finds the trip), then the
// trip records that very code; a trip shared already answers the domain's
// conflict.
func (p *Planner) Share(ctx context.Context, w Write, tripID string, version int64) (Outcome, error) {
	user, id, err := callerAnd(ctx, tripID)
	if err != nil {
		return Outcome{}, err
	}
	l, err := p.trips.Load(ctx, tripstore.User(user), id)
	if err != nil {
		return Outcome{}, err
	}
	seed := fixedRand{0} // shared already: Decide answers the conflict
	if !l.State.Share.Active() {
		if seed, err = p.trips.IndexShareCode(ctx, id); err != nil {
			return Outcome{}, err
		}
	}
	return p.change(ctx, user, w, id, command(trip.Share{Version: version, Rand: seed}), tripstore.Options{}, "")
}

// fixedRand answers every read with the same bytes, so Decide (which may
// run more than once on a stream conflict) draws the code indexed first.
type fixedRand []byte

func (f fixedRand) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = f[i%len(f)]
	}
	return len(b), nil
}

// SharedTrip is the trip a public share code names (not found for an
// unknown, revoked or deleted one), counted against the public limit of the
// client's address.
func (p *Planner) SharedTrip(ctx context.Context, code, clientAddr string) (trip.State, error) {
	if err := p.limits.Allow(ctx, LimitPublic, clientAddr); err != nil {
		return trip.State{}, err
	}
	return p.trips.SharedTrip(ctx, code)
}
