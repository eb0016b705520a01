package alert

import (
	"math"
	"testing"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestEstimateRiderTime(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                string
		km                  float64
		speed               float64
		dep                 int
		wantRiding, wantBrk float64
		wantLunch           bool
	}{
		// 90 km / 15 km/h = 6 h riding; 3 breaks of 10 min; 8 < 12 < 14 → lunch.
		{"a flat day spanning noon gets three short breaks and lunch", 90, 15, 8, 6, 0.5 + 1, true},
		// Leaving at 13: 13 < 12 is false, no lunch.
		{"an afternoon departure has no lunch break", 30, 15, 13, 2, 1.0 / 6, false},
		// 8 + 3.9 h ends before noon: 12 < 11.9 is false.
		{"a morning ride ending before noon has no lunch", 39, 10, 8, 3.9, 1.0 / 6, false},
		{"a ride under two hours has no short break", 15, 10, 6, 1.5, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			set := DefaultSettings()
			set.AverageSpeedKmh, set.DepartureHour = c.speed, c.dep
			r := EstimateRiderTime(riding(0, lyon, north(lyon, c.km*1000), c.km, 0), set)
			require.InDelta(t, c.speed, r.EffectiveSpeedKmh, 1e-9)
			require.InDelta(t, c.wantRiding, r.RidingHours, 1e-9)
			require.InDelta(t, c.wantBrk, r.BreakHours, 1e-9)
			require.Equal(t, c.wantLunch, r.Lunch)
			require.InDelta(t, float64(c.dep)+c.wantRiding+c.wantBrk, r.ArrivalHour(), 1e-9)
		})
	}

	t.Run("a rest day takes no time", func(t *testing.T) {
		t.Parallel()
		s := riding(0, lyon, lyon, 0, 0)
		s.RestDay = true
		r := EstimateRiderTime(s, DefaultSettings())
		require.Zero(t, r.RidingHours)
		require.Equal(t, 8.0, r.ArrivalHour())
	})

	t.Run("climbing costs the effort model's time, not a flat 2 km/h per 500 m", func(t *testing.T) {
		t.Parallel()
		set := DefaultSettings()
		m := pacing.NewModel(set)
		s := riding(0, lyon, north(lyon, 60000), 60, 1000)
		s.DescentM = 1000
		r := EstimateRiderTime(s, set)
		require.InDelta(t, (60000/m.Speed(0)+1000*m.HiddenClimbSeconds())/3600, r.RidingHours, 1e-9)
		// All of it uphill: 1,000 m at 9 km/h on 5 % is 20 km of the 60.
		s.DescentM = 0
		require.InDelta(t, (40000/m.Speed(0)+20000/m.Speed(0.05))/3600, EstimateRiderTime(s, set).RidingHours, 1e-9)
		// The reference formula, only as an oracle: max(5, 18 − 2·2) = 14 km/h.
		reference := 60 / math.Max(5, set.AverageSpeedKmh-2*(1000.0/500))
		require.NotEqual(t, math.Round(reference*100), math.Round(r.RidingHours*100))
	})

	t.Run("a stage the engine cut has exactly the riding time the engine gave it", func(t *testing.T) {
		t.Parallel()
		var pts []route.Point
		for i := range 6000 {
			x := float64(i) * 40
			pts = append(pts, route.Point{Lat: 45 + x/111195, Lon: 6 + 0.0005*math.Sin(x/300), Ele: 500 + 400*math.Sin(x/9000), HasEle: true})
		}
		set := DefaultSettings()
		set.FatigueFactor = 1
		plan, err := pacing.Plan(pts, set)
		require.NoError(t, err)
		require.Greater(t, plan.RidingDays, 1)
		for _, st := range plan.Stages {
			s := Stage{Index: st.Index, DistanceM: st.DistanceM, AscentM: st.AscentM, Points: st.Geometry}
			require.InDelta(t, st.RidingS/3600, EstimateRiderTime(s, set).RidingHours, 1e-9)
		}
	})
}

func TestRiderTimeHourAt(t *testing.T) {
	t.Parallel()
	set := DefaultSettings()
	set.AverageSpeedKmh = 15
	r := EstimateRiderTime(riding(0, lyon, north(lyon, 90000), 90, 0), set) // 6 h riding + 1.5 h breaks = 7.5 h
	t.Run("departure is at km 0", func(t *testing.T) {
		t.Parallel()
		require.InDelta(t, 8.0, r.HourAt(0), 1e-9)
	})
	t.Run("half way is half the day including breaks", func(t *testing.T) {
		t.Parallel()
		require.InDelta(t, 8+7.5/2, r.HourAt(45), 1e-9)
	})
	t.Run("the end is the arrival", func(t *testing.T) {
		t.Parallel()
		require.InDelta(t, 15.5, r.HourAt(90), 1e-9)
	})
}

func TestRiderTimePassageMinute(t *testing.T) {
	t.Parallel()
	set := DefaultSettings()
	set.AverageSpeedKmh = 15
	r := EstimateRiderTime(riding(0, lyon, north(lyon, 90000), 90, 0), set) // 08:00 to 15:30
	t.Run("a point half way is passed at the hour half way, to the minute", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 11*60+45, r.PassageMinute(45000))
	})
	t.Run("a point measured past the day's end is passed at the arrival", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 15*60+30, r.PassageMinute(90400))
	})
	t.Run("a point at or before the start is passed at departure", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 8*60, r.PassageMinute(0))
		require.Equal(t, 8*60, r.PassageMinute(-5))
	})
	t.Run("a rest day has no distance: every point is at departure", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 8*60, EstimateRiderTime(Stage{RestDay: true}, set).PassageMinute(12000))
	})
}
