package consumer

import (
	"slices"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/trip"
)

// tripHeadwind recomputes the trip-wide headwind alert over every riding
// stage's weather — the results of this analysis, and the weather the trip
// keeps for stages it did not re-analyse — so an analysis of two edited
// days does not judge the whole trip by those two. Nothing changes when the
// weather family did not run.
func (r *offlineResult) tripHeadwind(st trip.State) {
	if r.families[trip.FamilyWeather] != trip.Available {
		return
	}
	var sw []alert.StageWeather
	for _, s := range st.Stages {
		w, ok := r.weather[s.ContentHash]
		if !ok {
			w = s.Weather
		}
		if s.RestDay || w == nil {
			continue
		}
		sw = append(sw, alert.StageWeather{Index: s.Index, Start: s.Start, End: s.End, Typical: w.Typical,
			Weather: alert.Weather{TemperatureC: w.TempMaxC, WindKmh: w.WindMaxKmh, WindFromDeg: w.WindFromDeg,
				HumidityPct: w.HumidityPct, RainProbabilityPct: w.PrecipProbabilityPct}})
	}
	r.trip = slices.DeleteFunc(r.trip, func(a trip.Alert) bool { return a.Code == string(alert.CodeHeadwind) })
	if a, ok := alert.HeadwindAlert(sw); ok {
		r.trip = append(r.trip, trip.AlertFrom(a))
	}
}
