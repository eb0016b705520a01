package alert

import (
	"fmt"
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// Weather is one stage's forecast as the worker maps it from its provider
// (Open-Meteo): the rules below are pure so the provider can change.
type Weather struct {
	// TemperatureC is the day's representative temperature, °C.
	TemperatureC float64
	// WindKmh is the wind speed, km/h.
	WindKmh float64
	// WindFromDeg is the meteorological wind direction: where the wind
	// blows FROM, degrees clockwise from north.
	WindFromDeg float64
	// HumidityPct is relative humidity, 0–100.
	HumidityPct float64
	// RainProbabilityPct is the precipitation probability, 0–100.
	RainProbabilityPct float64
}

// ComfortIndex is the DOMAIN §5 weather comfort index, 0–100: start at 100;
// subtract min(20,(T−30)·2) above 30 °C or min(20,(5−T)·2) below 5 °C,
// min(30,(wind−20)·1.5) above 20 km/h, min(20,(hum−80)·0.5) above 80 %
// humidity and min(30,(pp−20)·0.5) above 20 % rain probability; never below 0.
// It is not rounded: the ≤ 39 rule compares the exact value.
func ComfortIndex(w Weather) float64 {
	c := 100.0
	switch {
	case w.TemperatureC > 30:
		c -= math.Min(20, (w.TemperatureC-30)*2)
	case w.TemperatureC < 5:
		c -= math.Min(20, (5-w.TemperatureC)*2)
	}
	if w.WindKmh > 20 {
		c -= math.Min(30, (w.WindKmh-20)*1.5)
	}
	if w.HumidityPct > 80 {
		c -= math.Min(20, (w.HumidityPct-80)*0.5)
	}
	if w.RainProbabilityPct > 20 {
		c -= math.Min(30, (w.RainProbabilityPct-20)*0.5)
	}
	return math.Max(0, c)
}

// RelativeWind classifies the wind against the direction of travel.
type RelativeWind string

// The three classes of DOMAIN §5.
const (
	Headwind  RelativeWind = "headwind"
	Tailwind  RelativeWind = "tailwind"
	Crosswind RelativeWind = "crosswind"
)

// Bearing is the initial great-circle bearing from a to b, degrees
// clockwise from north in [0, 360).
func Bearing(a, b route.Point) float64 {
	lat1, lat2 := rad(a.Lat), rad(b.Lat)
	dLon := rad(b.Lon - a.Lon)
	y := math.Sin(dLon) * math.Cos(lat2)
	x := math.Cos(lat1)*math.Sin(lat2) - math.Sin(lat1)*math.Cos(lat2)*math.Cos(dLon)
	return math.Mod(deg(math.Atan2(y, x))+360, 360)
}

// ClassifyWind compares the travel bearing (start→end) with the direction the
// wind comes from: within 60° the rider rides into it (headwind), 120° or
// more it pushes from behind (tailwind), otherwise it is a crosswind.
func ClassifyWind(travelBearingDeg, windFromDeg float64) RelativeWind {
	diff := math.Abs(math.Mod(travelBearingDeg-windFromDeg, 360))
	if diff > 180 {
		diff = 360 - diff
	}
	switch {
	case diff <= 60:
		return Headwind
	case diff >= 120:
		return Tailwind
	}
	return Crosswind
}

// Weather-rule thresholds of DOMAIN §5.
const (
	headwindMinKmh     = 25.0
	headwindStageShare = 0.6
	comfortAlertMax    = 39.0
)

// StageWeather pairs a stage's endpoints with its forecast for the weather
// rules.
type StageWeather struct {
	Index      int
	Start, End route.Point
	Weather    Weather
	// Typical says Weather is typical of the date (past years), not a
	// forecast: the comfort alert says so, and the headwind rule, which
	// needs a day's actual wind direction, leaves the stage out.
	Typical bool
}

// HeadwindAlert raises the trip-wide headwind warning when a headwind of at
// least 25 km/h is forecast on at least 60 % of the stages with a forecast
// (typical days are left out; a rest day should not be passed in). It
// returns false when no stage has a forecast.
func HeadwindAlert(stages []StageWeather) (Alert, bool) {
	if len(stages) == 0 {
		return Alert{}, false
	}
	n, forecast := 0, 0
	for _, s := range stages {
		if s.Typical {
			continue
		}
		forecast++
		if s.Weather.WindKmh >= headwindMinKmh && ClassifyWind(Bearing(s.Start, s.End), s.Weather.WindFromDeg) == Headwind {
			n++
		}
	}
	if forecast == 0 {
		return Alert{}, false
	}
	share := float64(n) / float64(forecast)
	if share < headwindStageShare {
		return Alert{}, false
	}
	return Alert{
		Code:       CodeHeadwind,
		Severity:   SeverityWarning,
		StageIndex: TripWide,
		Message:    fmt.Sprintf("A headwind of %.0f km/h or more is forecast on %d of %d stages.", headwindMinKmh, n, forecast),
		Value:      share,
	}, true
}

// ComfortAlerts raises weather_comfort_low for every stage whose comfort
// index is 39 or less, in input order.
func ComfortAlerts(stages []StageWeather) []Alert {
	var out []Alert
	for _, s := range stages {
		c := ComfortIndex(s.Weather)
		if c > comfortAlertMax {
			continue
		}
		what := "has poor riding weather"
		if s.Typical {
			what = "typically has poor riding weather on its date (past years, not a forecast)"
		}
		out = append(out, Alert{
			Code:       CodeWeatherComfortLow,
			Severity:   SeverityWarning,
			StageIndex: s.Index,
			Message:    fmt.Sprintf("Stage %d %s (comfort %.0f/100: %.0f °C, wind %.0f km/h, rain %.0f %%).", s.Index+1, what, c, s.Weather.TemperatureC, s.Weather.WindKmh, s.Weather.RainProbabilityPct),
			HasPoint:   true,
			Lat:        s.End.Lat,
			Lon:        s.End.Lon,
			Value:      c,
		})
	}
	return out
}
