package pacing

import (
	"math"
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestModel(t *testing.T) {
	t.Parallel()

	t.Run("rides the settings' flat speed on the flat and the penalty's speed on a 5 % climb", func(t *testing.T) {
		t.Parallel()
		for _, p := range Presets() {
			s := p.Apply(Defaults())
			m := NewModel(s)
			require.InDelta(t, s.AverageSpeedKmh, m.Speed(0)*3.6, 1e-6, p)
			want := s.AverageSpeedKmh * s.ElevationPenalty / (s.ElevationPenalty + 50)
			require.InDelta(t, want, m.Speed(0.05)*3.6, 1e-6, p)
			// So climbing `penalty` metres at 5 % costs one flat km on top
			// of the road: (L + 1000)/vFlat = L/v5 with L = penalty/0.05.
			l := s.ElevationPenalty / 0.05
			require.InDelta(t, (l+1000)/m.Speed(0), l/m.Speed(0.05), 1e-6, p)
		}
	})

	t.Run("is slower on every steeper climb, faster on descents but capped, and walks what it cannot ride", func(t *testing.T) {
		t.Parallel()
		m := NewModel(Defaults())
		prev := math.Inf(1)
		for g := -0.3; g <= 0.3; g += 0.0005 {
			v := m.Speed(g)
			require.LessOrEqual(t, v, prev+1e-9, "grade %.4f", g)
			require.LessOrEqual(t, v, MaxDescentKmh/3.6+1e-9)
			require.GreaterOrEqual(t, v, MinSpeedKmh/3.6-1e-9)
			prev = v
		}
		require.InDelta(t, MaxDescentKmh, m.Speed(-0.08)*3.6, 1e-9, "a steep descent is braked, not free")
		require.InDelta(t, MinSpeedKmh, m.Speed(0.25)*3.6, 1e-9, "25 % is pushed")
		// A descent is not double speed for nothing: at −2 % the rider
		// still pedals but gains far less than a 2 % climb loses.
		gain := m.Speed(-0.02)/m.Speed(0) - 1
		loss := 1 - m.Speed(0.02)/m.Speed(0)
		require.Greater(t, gain, 0.1)
		require.Less(t, m.Speed(-0.02), 2*m.Speed(0))
		require.Greater(t, loss, 0.2)
	})

	t.Run("an up-and-down day takes longer than the same km on the flat", func(t *testing.T) {
		t.Parallel()
		// Every metre climbed is paid slowly and given back fast but
		// capped: hills cost time even when the day ends where it began.
		m := NewModel(Defaults())
		flat := line(60000, func(float64) float64 { return 500 })
		hills := line(60000, func(x float64) float64 { return 500 + 150*math.Sin(2*math.Pi*x/6000) })
		require.Greater(t, m.RidingSeconds(hills), m.RidingSeconds(flat)*1.15)
		require.InDelta(t, route.Length(flat)/m.Speed(0), m.RidingSeconds(flat), route.Length(flat)/m.Speed(0)*0.003)
	})

	t.Run("an e-bike climbs faster, never past its assistance limit on its motor", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		plain := NewModel(s)
		s.EbikeMode = true
		e := NewModel(s)
		require.Equal(t, plain.Speed(0), e.Speed(0))
		require.Equal(t, plain.Speed(-0.05), e.Speed(-0.05))
		for _, g := range []float64{0.03, 0.05, 0.1} {
			require.Greater(t, e.Speed(g), plain.Speed(g)*1.3, "grade %v", g)
			require.LessOrEqual(t, e.Speed(g), EbikeAssistMaxKmh/3.6+1e-9)
		}
	})

	t.Run("a line without elevation is timed as flat; points missing one take their neighbours'", func(t *testing.T) {
		t.Parallel()
		m := NewModel(Defaults())
		pts := line(20000, func(x float64) float64 { return x / 20 }) // a steady 5 % climb
		flat := append([]route.Point(nil), pts...)
		for i := range flat {
			flat[i].HasEle, flat[i].Ele = false, 0
		}
		require.InDelta(t, route.Length(flat)/m.Speed(0), m.RidingSeconds(flat), route.Length(flat)/m.Speed(0)*0.003)
		gappy := append([]route.Point(nil), pts...)
		for i := range gappy {
			if i%3 != 0 {
				gappy[i].HasEle, gappy[i].Ele = false, 0
			}
		}
		require.InDelta(t, m.RidingSeconds(pts), m.RidingSeconds(gappy), m.RidingSeconds(pts)*0.01)
		require.InDelta(t, GeometryAscent(pts), GeometryAscent(gappy), 1)
	})

	t.Run("the reference rider-time formula agrees on the flat and slows a whole pass day where the model pays the climb", func(t *testing.T) {
		t.Parallel()
		// The formula the model replaces, kept here only as an oracle:
		// speed = max(5, averageSpeed − 2·(D+/500)) for the whole day.
		reference := func(km, ascentM, speed float64) float64 {
			return km / math.Max(5, speed-2*(ascentM/500)) * 3600
		}
		m := NewModel(Defaults())
		flat := line(80000, func(float64) float64 { return 100 })
		require.InDelta(t, reference(route.Length(flat)/1000, 0, 18), m.RidingSeconds(flat), 60)
		// One 1,500 m pass over 80 km: 10 km flat, 30 km up at 5 %, 30 km
		// down, 10 km flat. The formula rides all of it at 12 km/h (6.8 h);
		// the model rides the flat at 18, the climb at the penalty's 9 km/h
		// and the descent at its coasting speed: each part priced apart.
		pass := line(80000, func(x float64) float64 { return 500 + 1500*math.Max(0, 1-math.Abs(x-40000)/30000) })
		gain, _ := route.Elevation(pass)
		require.InDelta(t, 1500, gain, 1)
		length := route.Length(pass)
		parts := (length-60000*length/80000)/m.Speed(0) + 30000*length/80000/m.Speed(0.05) + 30000*length/80000/m.Speed(-0.05)
		require.InDelta(t, parts, m.RidingSeconds(pass), parts*0.03, "the model prices each part of the day at its own speed")
		require.Greater(t, reference(length/1000, gain, 18), m.RidingSeconds(pass)*1.2,
			"the formula slows the descent and the flat as much as the climb")
	})
}

// line is a north-going road of about n metres with a point every 20 m and
// elevation ele(x) at x metres along it. It winds 40 m either side of its
// axis every 800 m, as roads do, so the 20 m decimation keeps a vertex
// every few hundred metres (a ruler-straight line would keep only its two
// ends).
func line(n float64, ele func(x float64) float64) []route.Point {
	var pts []route.Point
	for x := 0.0; x <= n; x += 20 {
		east := 40 * math.Sin(2*math.Pi*x/800)
		pts = append(pts, route.Point{Lat: 45 + x/111195, Lon: 6 + east/(111195*math.Cos(45*math.Pi/180)), Ele: ele(x), HasEle: true})
	}
	return pts
}

func TestModelMemo(t *testing.T) {
	t.Parallel()
	t.Run("a rider in use stays memoized while many others are calibrated", func(t *testing.T) {
		t.Parallel()
		hot := Defaults()
		hot.AverageSpeedKmh = 17.25
		key := modelKey{hot.AverageSpeedKmh, hot.ElevationPenalty, hot.EbikeMode}
		NewModel(hot)
		for i := range maxModels + 10 {
			s := Defaults()
			s.AverageSpeedKmh = 30 + float64(i)/100
			NewModel(s)
			NewModel(hot)
			require.True(t, models.Contains(key), "the rider in use after %d others", i+1)
		}
		require.LessOrEqual(t, models.Len(), maxModels)
	})
}
