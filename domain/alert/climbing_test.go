package alert

import (
	"testing"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestElevationGain(t *testing.T) {
	t.Parallel()
	set := DefaultSettings()
	m := pacing.NewModel(set)
	limit := DailyClimbM(set)
	// The intermediate rider climbs ≈ 576 m an hour at most: ≈ 3,450 m in 6 h.
	require.InDelta(t, 6*m.ClimbMetresPerHour(), limit, 1e-9)
	require.InDelta(t, 3450, limit, 50)
	cases := []struct {
		name    string
		ascent  float64
		rest    bool
		want    bool
		splitKm float64
	}{
		{"1,300 m, which used to be flagged, is a day the rider can ride", 1300, false, false, 0},
		{"the rider's daily climb plus the tolerance is fine", limit * 1.1, false, false, 0},
		{"more suggests splitting at half distance", limit*1.1 + 1, false, true, 45},
		{"a rest day never climbs", 9000, true, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := riding(2, lyon, north(lyon, 90000), 90, c.ascent)
			s.RestDay = c.rest
			a, ok := elevationGain(s, set, m)
			require.Equal(t, c.want, ok)
			if ok {
				require.Equal(t, CodeElevationGain, a.Code)
				require.Equal(t, SeverityWarning, a.Severity)
				require.Equal(t, 2, a.StageIndex)
				require.Equal(t, &Action{Kind: ActionSplitStage, AtKm: c.splitKm}, a.Action)
				require.Equal(t, c.ascent, a.Value)
				require.Contains(t, a.Message, "6 h riding day")
			}
		})
	}

	t.Run("the threshold follows the rider: an expert climbs more in a longer day", func(t *testing.T) {
		t.Parallel()
		require.Greater(t, DailyClimbM(pacing.PresetExpert.Apply(set)), DailyClimbM(pacing.PresetBeginner.Apply(set))*2)
		e := set
		e.EbikeMode = true
		require.Greater(t, DailyClimbM(e), limit*1.5)
	})
}

func TestOverCapacity(t *testing.T) {
	t.Parallel()
	set := DefaultSettings() // 6 h a day, 150 km cap, 18 km/h on the flat
	m := pacing.NewModel(set)
	cases := []struct {
		name    string
		km      float64
		ascent  float64
		want    bool
		splitKm float64
	}{
		{"a flat day of the rider's 6 h (108 km) is fine", 108, 0, false, 0},
		{"6 h 54 min (124 km) is within the 15 % tolerance", 124, 0, false, 0},
		{"125 km (6.9 h) is over the rider's day: split where 6 h are ridden", 125, 0, true, 108},
		{"a climbing day over 6 h with few km (3,500 m up in 70 km)", 70, 3500, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, ok := overCapacity(riding(1, lyon, north(lyon, c.km*1000), c.km, c.ascent), set, m)
			require.Equal(t, c.want, ok)
			if ok {
				require.Equal(t, CodeStageOverCapacity, a.Code)
				require.Equal(t, ActionSplitStage, a.Action.Kind)
				if c.splitKm > 0 {
					require.InDelta(t, c.splitKm, a.Action.AtKm, 0.1)
				}
				require.Greater(t, a.Value, 6.9)
				require.Contains(t, a.Message, "more than your 6 h day")
			}
		})
	}

	t.Run("a day over the km cap fires even when the rider would have the hours", func(t *testing.T) {
		t.Parallel()
		s := set
		s.DailyRidingHours = 12
		a, ok := overCapacity(riding(1, lyon, north(lyon, 160000), 160, 0), s, pacing.NewModel(s))
		require.True(t, ok)
		require.Equal(t, 150.0, a.Action.AtKm)
		require.Contains(t, a.Message, "more than your 150 km a day")
		_, ok = overCapacity(riding(1, lyon, north(lyon, 150400), 150.4, 0), s, pacing.NewModel(s))
		require.False(t, ok, "within half a km of the cap")
	})

	t.Run("two engine days merged by an edit make a day too big", func(t *testing.T) {
		t.Parallel()
		stages := chain(lyon, 2, 100)
		merged := riding(0, stages[0].Start, stages[1].End, 200, 0)
		_, ok := overCapacity(stages[0], set, m)
		require.False(t, ok)
		_, ok = overCapacity(merged, set, m)
		require.True(t, ok)
	})
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
			set := DefaultSettings()
			set.EbikeMode = c.ebike
			a, ok := ebikeRange(s, set)
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

// TestElevationGainOnNoisyElevation is the alert on elevation data whose
// noise the point-by-point D+ counts (DEM cells mixing a road with the slope
// above it, as on the Giro Passi Svizzeri of docs/design/PACING.md):
// the days the engine cut are not flagged, though their counted D+ is over
// the rider's daily climb, and a day an edit made too big still is.
func TestElevationGainOnNoisyElevation(t *testing.T) {
	t.Parallel()
	set := pacing.PresetBeginner.Apply(DefaultSettings())
	set.FatigueFactor = 1
	// A straight, level road north from Lyon with a 40 m spike every 500 m.
	var pts []route.Point
	for i := 0; i <= 2400; i++ {
		p := north(lyon, float64(i)*50)
		p.Ele, p.HasEle = 500, true
		if i%10 == 5 {
			p.Ele = 540
		}
		pts = append(pts, p)
	}
	plan, err := pacing.Plan(pts, set)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(plan.Stages), 3)
	limit := DailyClimbM(set)
	var stages []Stage
	for _, st := range plan.Stages {
		stages = append(stages, Stage{Index: st.Index, Start: st.Start, End: st.End, DistanceM: st.DistanceM,
			AscentM: st.AscentM, DescentM: st.DescentM, Points: st.Geometry})
	}
	m := pacing.NewModel(set)
	require.Greater(t, stages[0].AscentM, limit*(1+climbTolerance), "the counted D+ alone would flag the day")
	for _, s := range stages {
		_, ok := elevationGain(s, set, m)
		require.False(t, ok, "day %d: %.0f m counted, %.0f m climbed", s.Index, s.AscentM, m.ClimbedM(s.Points, s.AscentM))
	}

	merged := Stage{Index: 0, Start: stages[0].Start, End: stages[2].End, Points: stages[0].Points}
	for _, s := range stages[:3] {
		merged.DistanceM += s.DistanceM
		merged.AscentM += s.AscentM
		if len(merged.Points) > 0 && s.Index > 0 {
			merged.Points = append(merged.Points, s.Points[1:]...)
		}
	}
	a, ok := elevationGain(merged, set, m)
	require.True(t, ok, "three days merged by an edit: %.0f m climbed", m.ClimbedM(merged.Points, merged.AscentM))
	require.Less(t, a.Value, merged.AscentM)
	require.Contains(t, a.Message, "counted point by point")
}
