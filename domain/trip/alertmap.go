package trip

import (
	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
)

// AlertFrom records a rule engine's alert (offline or a data provider's) as
// the trip keeps it: its family from the code (FamilyOf), its point, its one
// metric and its one-click fix as a typed edit.
func AlertFrom(a alert.Alert) Alert {
	t := Alert{Code: string(a.Code), Severity: string(a.Severity), Message: a.Message, Family: FamilyOf(a.Code)}
	if a.HasPoint {
		t.Location = &route.Point{Lat: a.Lat, Lon: a.Lon}
	}
	if a.Value != 0 {
		t.Metrics = map[string]float64{"value": a.Value}
	}
	if act := a.Action; act != nil {
		switch act.Kind {
		case alert.ActionSplitStage:
			t.Action = &AlertAction{Kind: "split_stage", AtDistanceM: act.AtKm * 1000}
		case alert.ActionSetDepartureHour:
			t.Action = &AlertAction{Kind: "set_departure_hour", DepartureHour: act.DepartureHour}
		case alert.ActionInsertRestDay:
			t.Action = &AlertAction{Kind: "add_rest_day", AfterIndex: max(a.StageIndex, 0)}
		}
	}
	return t
}

// AlertStages are the trip's stages as the offline rules read them, and
// whether any is dated (the date rules then need a time zone).
func AlertStages(in []Stage) ([]alert.Stage, bool) {
	out := make([]alert.Stage, len(in))
	dated := false
	for i, s := range in {
		out[i] = alert.Stage{
			Index: i, Date: s.Date.Time(), Start: s.Start, End: s.End,
			DistanceM: s.DistanceM, AscentM: s.AscentM, DescentM: s.DescentM,
			RestDay: s.RestDay, Points: s.Geometry,
		}
		dated = dated || !s.Date.IsZero()
	}
	return out, dated
}
