package alert_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
)

func TestDayWeather(t *testing.T) {
	t.Parallel()

	t.Run("the headwind component is the wind against the heading, negative from behind", func(t *testing.T) {
		t.Parallel()
		require.InDelta(t, 20, alert.HeadwindComponent(0, 0, 20), 1e-9, "riding north into a north wind")
		require.InDelta(t, -20, alert.HeadwindComponent(0, 180, 20), 1e-9, "a south wind pushes")
		require.InDelta(t, 0, alert.HeadwindComponent(90, 0, 20), 1e-9, "a crosswind")
		require.InDelta(t, 14.14, alert.HeadwindComponent(10, 55, 20), 0.01)
	})

	t.Run("typical weather averages past days, the wind as a vector and the rain as a share of rainy days", func(t *testing.T) {
		t.Parallel()
		w, ok := alert.TypicalWeather([]alert.WeatherSample{
			{TempMinC: 4, TempMaxC: 14, PrecipitationMM: 0, WindMaxKmh: 10, WindFromDeg: 350, HumidityPct: 60},
			{TempMinC: 6, TempMaxC: 16, PrecipitationMM: 3, WindMaxKmh: 20, WindFromDeg: 10, HumidityPct: 80},
			{TempMinC: 5, TempMaxC: 15, PrecipitationMM: 0.9, WindMaxKmh: 15, WindFromDeg: 0, HumidityPct: 70},
			{TempMinC: 5, TempMaxC: 15, PrecipitationMM: 1.0, WindMaxKmh: 15, WindFromDeg: 0, HumidityPct: 70},
		}, 2)
		require.True(t, ok)
		require.True(t, w.Typical)
		require.Equal(t, 2, w.Years)
		require.InDelta(t, 5, w.TempMinC, 1e-9)
		require.InDelta(t, 15, w.TempMaxC, 1e-9)
		require.InDelta(t, 1.225, w.PrecipitationMM, 1e-9)
		require.InDelta(t, 50, w.PrecipProbabilityPct, 1e-9, "3 mm and 1.0 mm are rainy days, 0.9 mm is not")
		dir := w.WindFromDeg
		if dir > 180 {
			dir -= 360
		}
		require.InDelta(t, 0, dir, 1e-6, "350° and 10° average to north")
		_, ok = alert.TypicalWeather(nil, 5)
		require.False(t, ok)
	})

	t.Run("finishing a day computes its headwind and comfort", func(t *testing.T) {
		t.Parallel()
		heading := alert.Bearing(route.Point{Lat: 60, Lon: 10}, route.Point{Lat: 61, Lon: 10})
		w := alert.DayWeather{TempMaxC: 20, WindMaxKmh: 30, WindFromDeg: 0, HumidityPct: 50, PrecipProbabilityPct: 20}.Finish(heading)
		require.InDelta(t, 30, w.HeadwindKmh, 0.01)
		require.InDelta(t, 85, w.Comfort, 1e-9, "100 − (30−20)·1.5")
	})

	// Ford severity and rain: both sides of FordRainMM.
	ford := alert.Alert{Code: alert.CodeFordCrossing, Severity: alert.SeverityWarning, Message: "Ford 12.0 km into this stage: it may be impassable after rain."}
	t.Run("a ford on a day forecast 10 mm of rain is critical", func(t *testing.T) {
		t.Parallel()
		a := alert.RaiseFordForRain(ford, &alert.DayWeather{PrecipitationMM: alert.FordRainMM})
		require.Equal(t, alert.SeverityCritical, a.Severity)
		require.Contains(t, a.Message, "10 mm of rain are forecast")
	})
	t.Run("a ford on a day forecast 9.9 mm stays a warning", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, ford, alert.RaiseFordForRain(ford, &alert.DayWeather{PrecipitationMM: 9.9}))
	})
	t.Run("typical rain is not a forecast and raises nothing", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, ford, alert.RaiseFordForRain(ford, &alert.DayWeather{Typical: true, Years: 5, PrecipitationMM: 30}))
		require.Equal(t, ford, alert.RaiseFordForRain(ford, nil))
		other := alert.Alert{Code: alert.CodeWaterGap, Severity: alert.SeverityWarning}
		require.Equal(t, other, alert.RaiseFordForRain(other, &alert.DayWeather{PrecipitationMM: 50}))
	})

	t.Run("a typical day's poor comfort says it is not a forecast, and typical days never count for headwind", func(t *testing.T) {
		t.Parallel()
		a, b := route.Point{Lat: 60, Lon: 10}, route.Point{Lat: 61, Lon: 10}
		cold := alert.Weather{TemperatureC: -5, WindKmh: 40, WindFromDeg: 0, RainProbabilityPct: 90}
		as := alert.ComfortAlerts([]alert.StageWeather{{Index: 0, Start: a, End: b, Weather: cold, Typical: true}})
		require.Len(t, as, 1)
		require.Contains(t, as[0].Message, "not a forecast")
		_, ok := alert.HeadwindAlert([]alert.StageWeather{{Start: a, End: b, Weather: cold, Typical: true}})
		require.False(t, ok)
		h, ok := alert.HeadwindAlert([]alert.StageWeather{{Start: a, End: b, Weather: cold}, {Start: a, End: b, Weather: cold, Typical: true}})
		require.True(t, ok)
		require.Contains(t, h.Message, "on 1 of 1 stages")
	})
}
