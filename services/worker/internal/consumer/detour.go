package consumer

import (
	"context"
	"errors"
	"log/slog"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/tripstore"
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

// routeDetour runs a detour job: for each waypoint it names (one just
// added, or those an edit of their stage put back on the estimate) it
// routes from the nearest point of the stage holding the waypoint now and
// records WaypointDetourRouted. Without a routing engine, for a waypoint
// gone or already routed, or when the engine finds no route, it records
// nothing and the estimate stays. The trip drops a result routed from a
// stage edited meanwhile. A redelivery after a transient failure routes
// only what is still estimated.
func (w *Workers) routeDetour(ctx context.Context, j job.Job, progress func()) error {
	if w.router == nil {
		return nil // no routing engine: the estimate is the answer
	}
	l, err := w.trips.LoadAtLeast(ctx, tripstore.System(), j.TripID, j.At)
	if err != nil {
		return err
	}
	for _, id := range j.Detour().WaypointIDs {
		st, wp, ok := l.State.WaypointByID(id)
		if !ok || !wp.DetourEstimated {
			continue
		}
		d, err := w.router.Detour(ctx, st.NearestPoint(wp.Location), wp.Location)
		switch {
		case errors.Is(err, ErrNoRoute):
			w.logger.Info("the routing engine found no route to the waypoint; its detour stays estimated",
				detourAttrs(j, id, slog.Any("error", err))...)
			continue
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
		if _, err := w.trips.Execute(ctx, tripstore.System(), j.TripID, cmd, options(j, "detour:"+st.ContentHash+":"+wp.ID, wp.ID)); err != nil {
			return err
		}
	}
	return nil
}

// detourFailed ends a detour job whose deliveries ran out (the routing
// engine down, its breaker open) or that failed for good: nothing is
// recorded, the waypoint keeps its estimated detour, and the log says why.
func (w *Workers) detourFailed(j job.Job, cause error) error {
	w.logger.Warn("routing the waypoint detour failed; its detour stays estimated",
		detourAttrs(j, "", slog.Any("error", cause))...)
	return nil
}

// detourAttrs are the log attributes of a detour job, for one waypoint (or,
// with waypoint empty, all it names).
func detourAttrs(j job.Job, waypoint string, more ...any) []any {
	if waypoint == "" {
		waypoint = job.ComputedFor(j.For)
	}
	return append([]any{slog.String("trip_id", j.TripID.String()), slog.String("waypoint_id", waypoint)}, more...)
}
