package job

import (
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
	var f Target
	switch p := ev.Payload.(type) {
	case *eventsv1.TripCreated:
		if p.GetUrl() == nil {
			return nil
		}
		f = ImportFor{SourceURL: p.GetUrl().GetUrl()}
	case *eventsv1.RouteImported:
		f = StagesFor{Hash: p.GetRouteHash()}
	case *eventsv1.TripSettingsUpdated:
		f = StagesFor{Hash: p.GetPacingSettingsHash()}
	case *eventsv1.TripDuplicated:
		if p.GetRoute() == nil || p.GetStages() != nil {
			return nil
		}
		f = StagesFor{Hash: p.GetRoute().GetRouteHash()}
	case *eventsv1.AnalysisRequested:
		j := New(tripID, ev.ID, AnalysisFor{AnalysisID: p.GetAnalysisId()})
		if ids := p.GetEstimatedWaypointIds(); len(ids) > 0 {
			return []Job{j, New(tripID, ev.ID, DetourFor{WaypointIDs: ids})}
		}
		return []Job{j}
	case *eventsv1.AccommodationsRequested:
		var idx []int
		for _, x := range p.GetStageIndexes() {
			idx = append(idx, int(x))
		}
		f = AccommodationsFor{RadiusM: int(p.GetRadiusM()), StageIndexes: idx}
	case *eventsv1.WaypointAdded:
		if !p.GetDetourEstimated() {
			return nil
		}
		f = DetourFor{WaypointIDs: []string{p.GetWaypointId()}}
	default:
		return nil
	}
	return []Job{New(tripID, ev.ID, f)}
}
