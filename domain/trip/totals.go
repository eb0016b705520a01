package trip

import (
	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
)

// Totals are the trip's distance, climbing and descent as every view states
// them (route.Totals): the sums over its riding days once it has stages,
// the imported route's measures before. Rest days count nothing.
func (s State) Totals() route.Totals {
	var t route.Totals
	if len(s.Stages) == 0 {
		if s.Route != nil {
			t.Add(s.Route.DistanceM, s.Route.AscentM, s.Route.DescentM)
		}
		return t
	}
	for _, st := range s.Stages {
		if !st.RestDay {
			t.Add(st.DistanceM, st.AscentM, st.DescentM)
		}
	}
	return t
}

// RiderTime is the stage's schedule under the trip's settings (departure,
// riding from the effort model, breaks, arrival): the one the sunset rule
// and the alerts compute, for the API to show.
func (st Stage) RiderTime(s Settings) alert.RiderTime {
	return alert.EstimateRiderTime(alert.Stage{
		Index: st.Index, Start: st.Start, End: st.End, RestDay: st.RestDay,
		DistanceM: st.DistanceM, AscentM: st.AscentM, DescentM: st.DescentM, Points: st.Geometry,
	}, s.Pacing())
}
