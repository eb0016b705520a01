package alert

import (
	"fmt"
	"math"
)

// DayWeather is one day's weather for the rider, as the worker maps it from
// its provider: a forecast for the date, or (Typical) the conditions of the
// same place and calendar days in past years, which is not a forecast and
// is always labelled as such.
type DayWeather struct {
	// Typical marks conditions averaged over Years past years.
	Typical bool
	Years   int
	// Lat and Lon are where it is for (the middle of the day's route).
	Lat, Lon float64
	// TempMinC and TempMaxC are the day's minimum and maximum, °C.
	TempMinC, TempMaxC float64
	// PrecipitationMM is the day's precipitation; PrecipProbabilityPct its
	// chance (typical: the share of past days with at least 1 mm).
	PrecipitationMM, PrecipProbabilityPct float64
	// WindMaxKmh is the maximum wind speed; WindFromDeg where it blows from.
	WindMaxKmh, WindFromDeg float64
	// HumidityPct is the mean relative humidity.
	HumidityPct float64
	// HeadwindKmh is the wind's component against the day's heading
	// (negative: a tailwind); Comfort the DOMAIN §5 comfort index.
	HeadwindKmh, Comfort float64
}

// WeatherSample is one past day's weather at a place, for TypicalWeather.
type WeatherSample struct {
	TempMinC, TempMaxC, PrecipitationMM, WindMaxKmh, WindFromDeg, HumidityPct float64
}

// RainyDayMM is the precipitation from which a past day counts as rainy
// for a typical day's chance of rain.
const RainyDayMM = 1.0

// HeadwindComponent is the part of a wind of speed (km/h) blowing from
// windFromDeg that a rider heading headingDeg rides into: speed × cos of the
// angle between them; negative for a tailwind.
func HeadwindComponent(headingDeg, windFromDeg, speed float64) float64 {
	return speed * math.Cos((windFromDeg-headingDeg)*math.Pi/180)
}

// Finish fills the derived fields of a day's weather ridden from start to
// end: the headwind component along the start→end bearing and the comfort
// index (the maximum temperature, the maximum wind, the humidity and the
// chance of rain, DOMAIN §5).
func (w DayWeather) Finish(headingDeg float64) DayWeather {
	w.HeadwindKmh = HeadwindComponent(headingDeg, w.WindFromDeg, w.WindMaxKmh)
	w.Comfort = ComfortIndex(Weather{TemperatureC: w.TempMaxC, WindKmh: w.WindMaxKmh, WindFromDeg: w.WindFromDeg,
		HumidityPct: w.HumidityPct, RainProbabilityPct: w.PrecipProbabilityPct})
	return w
}

// TypicalWeather averages past days' weather into a typical day over years
// past years: mean minimum and maximum temperatures, precipitation, maximum
// wind and humidity, the wind direction as a vector mean (so 350° and 10°
// average to north, not south), and the chance of rain as the share of
// days with at least RainyDayMM. false without samples.
func TypicalWeather(samples []WeatherSample, years int) (DayWeather, bool) {
	if len(samples) == 0 || years <= 0 {
		return DayWeather{}, false
	}
	var w DayWeather
	var x, y float64
	rainy := 0
	for _, s := range samples {
		w.TempMinC += s.TempMinC
		w.TempMaxC += s.TempMaxC
		w.PrecipitationMM += s.PrecipitationMM
		w.WindMaxKmh += s.WindMaxKmh
		w.HumidityPct += s.HumidityPct
		x += math.Cos(s.WindFromDeg * math.Pi / 180)
		y += math.Sin(s.WindFromDeg * math.Pi / 180)
		if s.PrecipitationMM >= RainyDayMM {
			rainy++
		}
	}
	n := float64(len(samples))
	w.TempMinC /= n
	w.TempMaxC /= n
	w.PrecipitationMM /= n
	w.WindMaxKmh /= n
	w.HumidityPct /= n
	w.WindFromDeg = math.Mod(math.Atan2(y, x)*180/math.Pi+360, 360)
	w.PrecipProbabilityPct = 100 * float64(rainy) / n
	w.Typical, w.Years = true, years
	return w, true
}

// Ford rule and rain: a ford on a day whose forecast brings FordRainMM or
// more is raised from warning to critical (the stream may be in spate).
// Typical conditions never raise it: they are not a forecast.
const FordRainMM = 10.0

// RaiseFordForRain raises a ford_crossing alert of a day with weather w to
// critical when w is a forecast of at least FordRainMM, saying why; any
// other alert, or a day without such a forecast, is returned unchanged.
func RaiseFordForRain(a Alert, w *DayWeather) Alert {
	if a.Code != CodeFordCrossing || w == nil || w.Typical || w.PrecipitationMM < FordRainMM {
		return a
	}
	a.Severity = SeverityCritical
	a.Message += fmt.Sprintf(" %.0f mm of rain are forecast that day: expect it high; find another way or wait.", w.PrecipitationMM)
	return a
}
