package job

import (
	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/services/api/tripstore"
)

// For is THE table mapping committed events to work (ARCHITECTURE §2):
//
//   - TripCreated from a URL          → import
//   - RouteImported                   → stages (an upload appends it with TripCreated)
//   - TripSettingsUpdated             → stages (the worker does nothing unless the
//     pacing hash changed: the event alone cannot tell, the folded trip can)
//   - TripDuplicated without stages   → stages
//   - AnalysisRequested               → analysis (trip.Decide appends it after
//     StagesComputed and after every edit, so analysis is mapped from it only)
//
// Events of other streams and every other type need no work. ok is false
// when the event needs none.
func For(ev eventstore.RecordedEvent) (Job, bool) {
	tripID, isTrip := tripstore.TripID(ev.StreamID)
	if !isTrip {
		return Job{}, false
	}
	j := Job{TripID: tripID, RequestEventID: ev.ID}
	switch p := ev.Payload.(type) {
	case *eventsv1.TripCreated:
		if p.GetUrl() == nil {
			return Job{}, false
		}
		j.Kind, j.ComputedFor = KindImport, p.GetUrl().GetUrl()
	case *eventsv1.RouteImported:
		j.Kind, j.ComputedFor = KindStages, p.GetRouteHash()
	case *eventsv1.TripSettingsUpdated:
		j.Kind, j.ComputedFor = KindStages, p.GetPacingSettingsHash()
	case *eventsv1.TripDuplicated:
		if p.GetRoute() == nil || p.GetStages() != nil {
			return Job{}, false
		}
		j.Kind, j.ComputedFor = KindStages, p.GetRoute().GetRouteHash()
	case *eventsv1.AnalysisRequested:
		j.Kind, j.ComputedFor = KindAnalysis, p.GetAnalysisId()
	default:
		return Job{}, false
	}
	return j, true
}
