package job

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/tripstore"
)

// For is THE table mapping committed events to work (ARCHITECTURE §2):
//
//   - TripCreated from a URL          → import
//   - RouteImported                   → stages (an upload appends it with TripCreated)
//   - TripSettingsUpdated             → stages (the worker does nothing unless the
//     pacing hash changed: the event alone cannot tell, the folded trip can)
//   - TripDuplicated without stages   → stages
//   - AnalysisRequested               → analysis (trip.Decide appends it after
//     StagesComputed and after every edit, so analysis is mapped from it only),
//     and detour when it names waypoints whose detour is an estimate again
//     (their stage changed)
//   - AccommodationsRequested         → accommodations
//   - WaypointAdded, detour estimated → detour (routed when a routing engine
//     is configured; no terminal event is awaited: the estimate stands)
//
// Events of other streams and every other type need no work: For returns
// nothing. An event requests at most one job of each kind (job.MsgID is
// kind and event).
func For(ev eventstore.RecordedEvent) []Job {
	tripID, isTrip := tripstore.TripID(ev.StreamID)
	if !isTrip {
		return nil
	}
	j := Job{TripID: tripID, RequestEventID: ev.ID}
	switch p := ev.Payload.(type) {
	case *eventsv1.TripCreated:
		if p.GetUrl() == nil {
			return nil
		}
		j.Kind, j.ComputedFor = KindImport, p.GetUrl().GetUrl()
	case *eventsv1.RouteImported:
		j.Kind, j.ComputedFor = KindStages, p.GetRouteHash()
	case *eventsv1.TripSettingsUpdated:
		j.Kind, j.ComputedFor = KindStages, p.GetPacingSettingsHash()
	case *eventsv1.TripDuplicated:
		if p.GetRoute() == nil || p.GetStages() != nil {
			return nil
		}
		j.Kind, j.ComputedFor = KindStages, p.GetRoute().GetRouteHash()
	case *eventsv1.AnalysisRequested:
		j.Kind, j.ComputedFor = KindAnalysis, p.GetAnalysisId()
		if ids := p.GetEstimatedWaypointIds(); len(ids) > 0 {
			d := Job{TripID: tripID, RequestEventID: ev.ID, Kind: KindDetour, ComputedFor: DetourFor(ids)}
			return []Job{j, d}
		}
	case *eventsv1.AccommodationsRequested:
		j.Kind, j.ComputedFor = KindAccommodations, AccommodationsFor(int(p.GetRadiusM()), p.GetStageIndexes())
	case *eventsv1.WaypointAdded:
		if !p.GetDetourEstimated() {
			return nil
		}
		j.Kind, j.ComputedFor = KindDetour, p.GetWaypointId()
	default:
		return nil
	}
	return []Job{j}
}

// DetourFor is the ComputedFor of a detour job: the waypoint ids to route,
// comma-separated ("id" for one added, "id1,id2" for those an edit put back
// on their estimate).
func DetourFor(waypointIDs []string) string { return strings.Join(waypointIDs, ",") }

// ParseDetourFor reads DetourFor back.
func ParseDetourFor(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// AccommodationsFor is the ComputedFor of an accommodations job: the radius
// in metres, then "/" and the stage indexes when the request named some
// ("5000", "8000/0,2").
func AccommodationsFor(radiusM int, stageIndexes []uint32) string {
	out := strconv.Itoa(radiusM)
	for i, x := range stageIndexes {
		sep := ","
		if i == 0 {
			sep = "/"
		}
		out += sep + strconv.FormatUint(uint64(x), 10)
	}
	return out
}

// ParseAccommodationsFor reads AccommodationsFor back.
func ParseAccommodationsFor(s string) (radiusM int, stageIndexes []int, err error) {
	r, idx, _ := strings.Cut(s, "/")
	if radiusM, err = strconv.Atoi(r); err != nil {
		return 0, nil, fmt.Errorf("%w: accommodations computedFor %q has no radius", ErrInvalidJob, s)
	}
	if idx == "" {
		return radiusM, nil, nil
	}
	for _, x := range strings.Split(idx, ",") {
		i, err := strconv.Atoi(x)
		if err != nil || i < 0 {
			return 0, nil, fmt.Errorf("%w: accommodations computedFor %q has a bad stage index", ErrInvalidJob, s)
		}
		stageIndexes = append(stageIndexes, i)
	}
	return radiusM, stageIndexes, nil
}
