package alert

import (
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestComfortIndex(t *testing.T) {
	t.Parallel()
	mild := Weather{TemperatureC: 20, WindKmh: 10, HumidityPct: 50, RainProbabilityPct: 0}
	with := func(f func(*Weather)) Weather { w := mild; f(&w); return w }
	cases := []struct {
		name string
		w    Weather
		want float64
	}{
		{"a mild day is 100", mild, 100},
		{"30 °C exactly costs nothing", with(func(w *Weather) { w.TemperatureC = 30 }), 100},
		{"35 °C costs (35−30)·2 = 10", with(func(w *Weather) { w.TemperatureC = 35 }), 90},
		{"heat costs at most 20", with(func(w *Weather) { w.TemperatureC = 45 }), 80},
		{"0 °C costs (5−0)·2 = 10", with(func(w *Weather) { w.TemperatureC = 0 }), 90},
		{"cold costs at most 20", with(func(w *Weather) { w.TemperatureC = -10 }), 80},
		{"20 km/h of wind costs nothing", with(func(w *Weather) { w.WindKmh = 20 }), 100},
		{"30 km/h costs (30−20)·1.5 = 15", with(func(w *Weather) { w.WindKmh = 30 }), 85},
		{"wind costs at most 30", with(func(w *Weather) { w.WindKmh = 50 }), 70},
		{"90 % humidity costs (90−80)·0.5 = 5", with(func(w *Weather) { w.HumidityPct = 90 }), 95},
		{"60 % rain probability costs (60−20)·0.5 = 20", with(func(w *Weather) { w.RainProbabilityPct = 60 }), 80},
		{"rain costs at most 30", with(func(w *Weather) { w.RainProbabilityPct = 100 }), 70},
		{"penalties add up", Weather{TemperatureC: -10, WindKmh: 60, HumidityPct: 50, RainProbabilityPct: 42}, 39},
		{"the index never goes below 0", Weather{TemperatureC: -20, WindKmh: 80, HumidityPct: 200, RainProbabilityPct: 100}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, c.want, ComfortIndex(c.w), 1e-9)
		})
	}
}

func TestClassifyWind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name          string
		bearing, from float64
		want          RelativeWind
	}{
		{"riding north into a north wind", 0, 0, Headwind},
		{"60° off the nose is still a headwind", 0, 60, Headwind},
		{"61° off is a crosswind", 0, 61, Crosswind},
		{"119° off is a crosswind", 0, 119, Crosswind},
		{"120° off is a tailwind", 0, 120, Tailwind},
		{"a wind from behind is a tailwind", 90, 270, Tailwind},
		{"angles wrap around north", 350, 20, Headwind},
		{"negative-side angles wrap too", 10, 300, Crosswind},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, ClassifyWind(c.bearing, c.from))
		})
	}
}

func TestBearing(t *testing.T) {
	t.Parallel()
	o := route.Point{}
	require.InDelta(t, 0, Bearing(o, route.Point{Lat: 1}), 1e-9, "north")
	require.InDelta(t, 90, Bearing(o, route.Point{Lon: 1}), 1e-9, "east")
	require.InDelta(t, 180, Bearing(o, route.Point{Lat: -1}), 1e-9, "south")
	require.InDelta(t, 270, Bearing(o, route.Point{Lon: -1}), 1e-9, "west")
	// Paris → Berlin: initial great-circle bearing ≈ 58°.
	require.InDelta(t, 58, Bearing(parisPt, route.Point{Lat: 52.52, Lon: 13.405}), 1)
}

func TestHeadwindAlert(t *testing.T) {
	t.Parallel()
	// Five northbound stages; n of them with the given wind from the north.
	build := func(n int, kmh float64) []StageWeather {
		var out []StageWeather
		for i, s := range chain(lyon, 5, 50) {
			w := Weather{TemperatureC: 15, WindKmh: 10, WindFromDeg: 180}
			if i < n {
				w = Weather{TemperatureC: 15, WindKmh: kmh, WindFromDeg: 10}
			}
			out = append(out, StageWeather{Index: i, Start: s.Start, End: s.End, Weather: w})
		}
		return out
	}
	t.Run("3 of 5 stages (60 %) into 25 km/h raise it", func(t *testing.T) {
		t.Parallel()
		a, ok := HeadwindAlert(build(3, 25))
		require.True(t, ok)
		require.Equal(t, CodeHeadwind, a.Code)
		require.Equal(t, TripWide, a.StageIndex)
		require.InDelta(t, 0.6, a.Value, 1e-9)
	})
	t.Run("2 of 5 stages do not", func(t *testing.T) {
		t.Parallel()
		_, ok := HeadwindAlert(build(2, 40))
		require.False(t, ok)
	})
	t.Run("24 km/h is below the threshold", func(t *testing.T) {
		t.Parallel()
		_, ok := HeadwindAlert(build(5, 24))
		require.False(t, ok)
	})
	t.Run("no stages, no alert", func(t *testing.T) {
		t.Parallel()
		_, ok := HeadwindAlert(nil)
		require.False(t, ok)
	})
}

func TestComfortAlerts(t *testing.T) {
	t.Parallel()
	st := chain(lyon, 3, 50)
	in := []StageWeather{
		{Index: 0, Start: st[0].Start, End: st[0].End, Weather: Weather{TemperatureC: 20}},
		{Index: 1, Start: st[1].Start, End: st[1].End, Weather: Weather{TemperatureC: -10, WindKmh: 60, RainProbabilityPct: 42}},
		{Index: 2, Start: st[2].Start, End: st[2].End, Weather: Weather{TemperatureC: -10, WindKmh: 60, RainProbabilityPct: 40}},
	}
	as := ComfortAlerts(in)
	require.Len(t, as, 1, "39 alerts, 40 does not")
	require.Equal(t, CodeWeatherComfortLow, as[0].Code)
	require.Equal(t, 1, as[0].StageIndex)
	require.InDelta(t, 39, as[0].Value, 1e-9)
}
