package trip

import (
	"maps"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
)

// AlertFrom records a rule engine's alert (offline or a data provider's) as
// the trip keeps it: its family from the code (FamilyOf), its point, its
// metrics (Value as "value", beside the rule's named ones) and its one-click
// fix as a typed edit.
func AlertFrom(a alert.Alert) Alert {
	t := Alert{Code: string(a.Code), Severity: string(a.Severity), Message: a.Message, Family: FamilyOf(a.Code)}
	if a.HasPoint {
		t.Location = &route.Point{Lat: a.Lat, Lon: a.Lon}
	}
	if a.Value != 0 || len(a.Metrics) > 0 {
		t.Metrics = make(map[string]float64, len(a.Metrics)+1)
		if a.Value != 0 {
			t.Metrics["value"] = a.Value
		}
		maps.Copy(t.Metrics, a.Metrics)
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

// SeasonalClosures are the accommodation_seasonal_closure alerts of the
// trip's dated riding days but the last (alert.SeasonalClosure), from the
// accommodations each day has when the analysis runs: the chosen night, or
// the candidates offered (choosing a night moves the day's end, so the
// analysis that follows reads the choice).
func (s State) SeasonalClosures() []alert.Alert {
	var out []alert.Alert
	for i, st := range s.Stages {
		if st.RestDay || st.Date.IsZero() || i == len(s.Stages)-1 {
			continue
		}
		var chosen *alert.Lodging
		if st.Chosen != nil {
			chosen = &alert.Lodging{Name: st.Chosen.Name, ClosedMonths: st.Chosen.ClosedMonths}
		}
		var offered []alert.Lodging
		for _, a := range st.Offered {
			offered = append(offered, alert.Lodging{Name: a.Name, ClosedMonths: a.ClosedMonths})
		}
		if a, ok := alert.SeasonalClosure(i, st.Date.Time(), chosen, offered); ok {
			out = append(out, a)
		}
	}
	return out
}
