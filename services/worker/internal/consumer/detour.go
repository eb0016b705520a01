package consumer

import (
	"context"
	"errors"
	"log/slog"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/api/tripstore"
	"github.com/roadbook/roadbook/services/worker/internal/job"
)

// ErrNoRoute is matched by a DetourRouter's answer when the routing engine
// found no route to the waypoint (OSRM's NoRoute): retrying cannot help and
// the waypoint keeps its estimated detour.
var ErrNoRoute = errors.New("consumer: the routing engine found no route to the waypoint")

// DetourRouter routes a waypoint's detour with a routing engine (an
// OSRM-compatible endpoint behind the third-party mechanism: pacer, cache,
// breaker). Optional: without one every detour stays the straight-line
// estimate, said to be one (DOMAIN §4).
type DetourRouter interface {
	// Engine names the routing engine recorded with the detour ("osrm").
	Engine() string
	// Detour is the routed distance in metres from `from` (the nearest
	// point of the stage) to the waypoint and back. An error matching
	// ErrNoRoute means there is no route; any other is transient.
	Detour(ctx context.Context, from, waypoint route.Point) (float64, error)
}

// routeDetour runs the detour job of a waypoint added with an estimate: it
// routes from the nearest point of the stage holding the waypoint now and
// records WaypointDetourRouted. Without a routing engine, for a waypoint
// gone or already routed, or when the engine finds no route, it records
// nothing and the estimate stays. The trip drops a result routed from a
// stage edited meanwhile.
func (w *Workers) routeDetour(ctx context.Context, j job.Job, progress func()) error {
	if w.router == nil {
		return nil // no routing engine: the estimate is the answer
	}
	l, err := w.trips.Load(ctx, tripstore.System(), j.TripID)
	if err != nil {
		return err
	}
	st, wp, ok := l.State.WaypointByID(j.ComputedFor)
	if !ok || !wp.DetourEstimated {
		return nil
	}
	d, err := w.router.Detour(ctx, st.NearestPoint(wp.Location), wp.Location)
	switch {
	case errors.Is(err, ErrNoRoute):
		w.logger.Info("the routing engine found no route to the waypoint; its detour stays estimated",
			detourAttrs(j, slog.Any("error", err))...)
		return nil
	case err != nil:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	progress()
	cmd := trip.RecordWaypointDetour{
		WaypointID: wp.ID,
		Stage:      trip.StageRef{Index: st.Index, ContentHash: st.ContentHash},
		DetourM:    d,
		Engine:     w.router.Engine(),
	}
	_, err = w.trips.Execute(ctx, tripstore.System(), j.TripID, cmd, options(j, "detour:"+st.ContentHash, wp.ID))
	return err
}

// detourFailed ends a detour job whose deliveries ran out (the routing
// engine down, its breaker open) or that failed for good: nothing is
// recorded, the waypoint keeps its estimated detour, and the log says why.
func (w *Workers) detourFailed(j job.Job, cause error) error {
	w.logger.Warn("routing the waypoint detour failed; its detour stays estimated",
		detourAttrs(j, slog.Any("error", cause))...)
	return nil
}

// detourAttrs are the log attributes of a detour job.
func detourAttrs(j job.Job, more ...any) []any {
	return append([]any{slog.String("trip_id", j.TripID.String()), slog.String("waypoint_id", j.ComputedFor)}, more...)
}
