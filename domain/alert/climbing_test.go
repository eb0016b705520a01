package alert

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestElevationGain(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		ascent  float64
		rest    bool
		want    bool
		splitKm float64
	}{
		{"1200 m exactly is fine", 1200, false, false, 0},
		{"1201 m suggests splitting at half distance", 1201, false, true, 45},
		{"a rest day never climbs", 2000, true, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := riding(2, lyon, north(lyon, 90000), 90, c.ascent)
			s.RestDay = c.rest
			a, ok := elevationGain(s)
			require.Equal(t, c.want, ok)
			if ok {
				require.Equal(t, CodeElevationGain, a.Code)
				require.Equal(t, SeverityWarning, a.Severity)
				require.Equal(t, 2, a.StageIndex)
				require.Equal(t, &Action{Kind: ActionSplitStage, AtKm: c.splitKm}, a.Action)
				require.Equal(t, c.ascent, a.Value)
			}
		})
	}
}

func TestEbikeRange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		ebike     bool
		km, climb float64
		want      bool
		action    *Action
	}{
		{"a flat 80 km day is within range", true, 80, 0, false, nil},
		{"a flat 80.1 km day exceeds it", true, 80.1, 0, true, &Action{Kind: ActionSplitStage, AtKm: 80}},
		// 1000 m of climbing costs 40 km: range 40 km.
		{"climbing shortens the range by 1 km per 25 m", true, 41, 1000, true, &Action{Kind: ActionSplitStage, AtKm: 40}},
		{"the range is within limit at 40 km after 1000 m", true, 40, 1000, false, nil},
		{"beyond 2000 m of climbing the range is zero and no split helps", true, 10, 2500, true, nil},
		{"without e-bike mode nothing is checked", false, 200, 3000, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := riding(0, lyon, north(lyon, c.km*1000), c.km, c.climb)
			a, ok := ebikeRange(s, Settings{AverageSpeedKmh: 15, DepartureHour: 8, EbikeMode: c.ebike})
			require.Equal(t, c.want, ok)
			if ok {
				require.Equal(t, CodeEbikeRangeExceeded, a.Code)
				require.Equal(t, c.action, a.Action)
				require.InDelta(t, c.km, a.Value, 1e-9)
			}
		})
	}
	t.Run("the range formula is max(0, 80 − D+/25)", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 80.0, EbikeRangeKm(0))
		require.Equal(t, 60.0, EbikeRangeKm(500))
		require.Equal(t, 0.0, EbikeRangeKm(2000))
		require.Equal(t, 0.0, EbikeRangeKm(3000))
	})
}
