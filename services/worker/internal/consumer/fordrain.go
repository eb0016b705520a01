package consumer

import (
	"github.com/roadbook/roadbook/domain/alert"
)

// raiseFordsForRain applies alert.RaiseFordForRain across providers: the
// crossings rules (OSM) find a ford, the weather provider the day's rain,
// and only once both have answered can a ford on a rainy day become
// critical.
func (r offlineResult) raiseFordsForRain() {
	for h, as := range r.byHash {
		w := r.weather[h]
		if w == nil {
			continue
		}
		dw := &alert.DayWeather{Typical: w.Typical, Years: w.TypicalYears, PrecipitationMM: w.PrecipitationMM}
		for i, a := range as {
			if a.Code != string(alert.CodeFordCrossing) {
				continue
			}
			raised := alert.RaiseFordForRain(alert.Alert{Code: alert.CodeFordCrossing, Severity: alert.Severity(a.Severity), Message: a.Message}, dw)
			as[i].Severity, as[i].Message = string(raised.Severity), raised.Message
		}
		r.byHash[h] = as
	}
}
