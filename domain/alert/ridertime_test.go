package alert

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEstimateRiderTime(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                             string
		km, ascent, speed                float64
		dep                              int
		wantSpeed, wantRiding, wantBreak float64
		wantLunch                        bool
	}{
		// 90 km / 15 km/h = 6 h riding; 3 breaks of 10 min; 8 < 12 < 14 → lunch.
		{"a flat day spanning noon gets three short breaks and lunch", 90, 0, 15, 8, 15, 6, 0.5 + 1, true},
		// 1000 m of climbing slows 15 km/h by 2·2 = 4 km/h.
		{"climbing lowers the effective speed by 2 km/h per 500 m", 55, 1000, 15, 8, 11, 5, 2.0/6 + 1, true},
		// 8 + 4 h ends exactly at noon: 12 < 12 is false, no lunch.
		{"the effective speed never drops below 5 km/h", 20, 5000, 15, 8, 5, 4, 2.0 / 6, false},
		// Leaving at 13: 13 < 12 is false, no lunch.
		{"an afternoon departure has no lunch break", 30, 0, 15, 13, 15, 2, 1.0 / 6, false},
		// 8 + 3.9 h ends before noon: 12 < 11.9 is false.
		{"a morning ride ending before noon has no lunch", 39, 0, 10, 8, 10, 3.9, 1.0 / 6, false},
		{"a ride under two hours has no short break", 15, 0, 10, 6, 10, 1.5, 0, false},
		{"a zero-km rest day takes no time", 0, 0, 15, 8, 15, 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := EstimateRiderTime(c.km, c.ascent, c.speed, c.dep)
			require.InDelta(t, c.wantSpeed, r.EffectiveSpeedKmh, 1e-9)
			require.InDelta(t, c.wantRiding, r.RidingHours, 1e-9)
			require.InDelta(t, c.wantBreak, r.BreakHours, 1e-9)
			require.Equal(t, c.wantLunch, r.Lunch)
			require.InDelta(t, float64(c.dep)+c.wantRiding+c.wantBreak, r.ArrivalHour(), 1e-9)
			require.InDelta(t, r.ArrivalHour(), ArrivalHour(c.km, c.ascent, c.speed, c.dep), 1e-12)
		})
	}
}

func TestRiderTimeHourAt(t *testing.T) {
	t.Parallel()
	r := EstimateRiderTime(90, 0, 15, 8) // 6 h riding + 1.5 h breaks = 7.5 h
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
