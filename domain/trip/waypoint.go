package trip

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// A waypoint's detour starts as DOMAIN §4's estimate (twice the straight
// line from the nearest point of its stage) and is replaced by the routed
// one when a routing engine answers: the detour worker routes it and
// records WaypointDetourRouted. Like every worker result it carries no
// version and is judged against what the trip has now.

// MaxEngineBytes bounds the routing engine name a routed detour records.
const MaxEngineBytes = 64

// line is the polyline a waypoint's detour leaves from: the stage's
// geometry, or the straight line between its ends when the geometry is not
// inline (a blob) or absent (a rest day).
func (st Stage) line() []route.Point {
	if len(st.Geometry) > 0 {
		return st.Geometry
	}
	return []route.Point{st.Start, st.End}
}

// NearestPoint is the point of the stage's line nearest to p: where a
// detour to p leaves the route and comes back to it. The estimate and the
// routed detour both start there, so they measure the same detour.
func (st Stage) NearestPoint(p route.Point) route.Point {
	return nearestOnLine(p, st.line())
}

// lineKey identifies the line a waypoint's detour is measured from: the
// stage's geometry (or its blob, or its two ends), and nothing else — unlike
// the content hash, which also covers the date and the pacing settings, on
// which a detour does not depend.
func (st Stage) lineKey() string {
	h := sha256.New()
	var buf [8]byte
	for _, p := range st.line() {
		binary.BigEndian.PutUint64(buf[:], uint64(int64(math.Round(p.Lat*1e6))))
		h.Write(buf[:])
		binary.BigEndian.PutUint64(buf[:], uint64(int64(math.Round(p.Lon*1e6))))
		h.Write(buf[:])
	}
	h.Write([]byte(st.GeometryBlobHash))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// settleDetours puts every waypoint of st whose detour was measured on
// another line (the stage was edited or re-cut since, or the waypoint moved
// to another stage) back on DOMAIN §4's estimate from st's line: a detour
// routed from the old line no longer measures the way there. The analysis
// requested with the change names them (rerouted), and the detour worker
// routes them again.
func settleDetours(st *Stage) {
	if len(st.Waypoints) == 0 {
		return
	}
	key, cloned := st.lineKey(), false
	for i := range st.Waypoints {
		if st.Waypoints[i].MeasuredOn == key {
			continue
		}
		if !cloned {
			st.Waypoints, cloned = slices.Clone(st.Waypoints), true
		}
		w := &st.Waypoints[i]
		w.DetourM, w.DetourEstimated, w.MeasuredOn = roundM(detourEstimate(w.Location, st.line())), true, key
	}
}

// MaxRerouteWaypoints bounds the waypoints one analysis request asks the
// detour worker to route; any beyond keep their estimate until an analysis
// the rider asks for (analyze_trip) names them.
const MaxRerouteWaypoints = 100

// rerouted are the ids of the waypoints a change put back on the estimate:
// estimated in after, and routed in before or measured there on another
// line. At most MaxRerouteWaypoints.
func rerouted(before, after State) []string {
	was := map[string]Waypoint{}
	for _, st := range before.Stages {
		for _, w := range st.Waypoints {
			was[w.ID] = w
		}
	}
	var ids []string
	for _, st := range after.Stages {
		for _, w := range st.Waypoints {
			old, ok := was[w.ID]
			if w.DetourEstimated && ok && (!old.DetourEstimated || old.MeasuredOn != w.MeasuredOn) && len(ids) < MaxRerouteWaypoints {
				ids = append(ids, w.ID)
			}
		}
	}
	return ids
}

// estimatedWaypoints are the ids of every waypoint whose detour is an
// estimate, at most MaxRerouteWaypoints: what an analysis the rider asks for
// has routed (again), whatever left them estimated — an engine that was
// down, a cap reached, or a trip whose history predates re-routing.
func estimatedWaypoints(s State) []string {
	var ids []string
	for _, st := range s.Stages {
		for _, w := range st.Waypoints {
			if w.DetourEstimated && len(ids) < MaxRerouteWaypoints {
				ids = append(ids, w.ID)
			}
		}
	}
	return ids
}

// WaypointByID finds a waypoint and the stage holding it now.
func (s State) WaypointByID(id string) (Stage, Waypoint, bool) {
	for _, st := range s.Stages {
		for _, w := range st.Waypoints {
			if w.ID == id {
				return st, w, true
			}
		}
	}
	return Stage{}, Waypoint{}, false
}

func decideWaypointDetour(s State, c RecordWaypointDetour) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	if _, err := uuid.Parse(c.WaypointID); err != nil {
		return nil, invalid("waypointId", "must be a UUID")
	}
	if !(c.DetourM >= 0) || math.IsInf(c.DetourM, 0) {
		return nil, invalid("detourM", "must be a finite distance of 0 m or more")
	}
	engine := strings.TrimSpace(c.Engine)
	if engine == "" || len(engine) > MaxEngineBytes {
		return nil, invalid("engine", "must name the routing engine in 1 to %d bytes", MaxEngineBytes)
	}
	st, w, ok := s.WaypointByID(c.WaypointID)
	if !ok || st.ContentHash != c.Stage.ContentHash {
		return nil, nil // superseded: the waypoint, or the stage it was routed from, is gone
	}
	if !w.DetourEstimated {
		return nil, nil // already routed: a redelivery records nothing
	}
	return []Event{&eventsv1.WaypointDetourRouted{
		WaypointId:       w.ID,
		StageIndex:       uint32(st.Index),
		StageContentHash: st.ContentHash,
		DetourM:          roundM(c.DetourM),
		RoutingEngine:    engine,
	}}, nil
}

// applyWaypointDetourRouted sets the routed detour on the waypoint, when it
// is still on the stage content the detour was routed from.
func applyWaypointDetourRouted(s State, ev *eventsv1.WaypointDetourRouted) State {
	i := s.stageIndexFor(ev.GetStageContentHash(), -1)
	if i < 0 {
		return s
	}
	for j := range s.Stages[i].Waypoints {
		if w := &s.Stages[i].Waypoints[j]; w.ID == ev.GetWaypointId() {
			w.DetourM, w.DetourEstimated, w.MeasuredOn = ev.GetDetourM(), false, s.Stages[i].lineKey()
		}
	}
	return s
}
