package planner

import (
	"context"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

// RescanAccommodations asks for a new accommodation search around the ends
// of the caller's stages (DOMAIN §6), counted against the recompute limit
// of the trip.
func (p *Planner) RescanAccommodations(ctx context.Context, w Write, tripID string, cmd trip.RescanAccommodations) (Outcome, error) {
	user, id, err := p.recomputing(ctx, tripID)
	if err != nil {
		return Outcome{}, err
	}
	return p.change(ctx, user, w, id, command(cmd), tripstore.Options{}, "")
}
