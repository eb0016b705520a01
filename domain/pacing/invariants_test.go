package pacing

import (
	"math"
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

// checkInvariants asserts DOMAIN §3's invariants on a plan, recomputing what it
// compares against from the raw points and the settings, not from the engine's
// internals.
func checkInvariants(t *testing.T, pts []route.Point, s Settings, res Result) {
	t.Helper()
	dec := route.Simplify(pts, route.DecimationToleranceM)
	routeM := route.Length(dec)
	model := NewModel(s)
	gain, _ := route.Elevation(pts)
	routeS := res.RidingS
	// The route's riding time is the day rule applied to the whole route,
	// up to the run rule and the half-time floor segment by segment.
	require.InDelta(t, model.StageSeconds(dec, gain), routeS, routeS*0.01+60)
	capKm := s.MaxDistancePerDayKm
	capacity := s.DailyRidingHours * 3600
	rides := riding(res.Stages)
	require.NotEmpty(t, rides)
	require.Equal(t, len(res.Stages), res.Days)
	require.Equal(t, len(rides), res.RidingDays)
	require.Equal(t, len(res.Stages) < 2, res.MinStages)

	// Σ stage km = route km within 0.1 %.
	sumM := 0.0
	for _, st := range res.Stages {
		sumM += st.DistanceM
	}
	require.InDelta(t, routeM, sumM, routeM*0.001, "Σ stage km against the route km")
	require.InDelta(t, routeM, res.DistanceM, 1e-6)

	// The days are continuous: shared cut points, shared raw indexes, from the
	// route's start to its end.
	require.Equal(t, pts[0], rides[0].Start)
	require.Equal(t, pts[len(pts)-1], rides[len(rides)-1].End)
	require.Equal(t, 0, rides[0].RawFrom)
	require.Equal(t, len(pts)-1, rides[len(rides)-1].RawTo)
	for i := 1; i < len(rides); i++ {
		require.Equal(t, rides[i-1].End, rides[i].Start, "day %d starts where day %d ends", i, i-1)
		require.Equal(t, rides[i-1].RawTo, rides[i].RawFrom)
	}

	// Fatigue weights within blocks; rest days carry 0 km where the rider is,
	// never first, never last without dates, never two in a row.
	want := expectedWeights(res.Stages, s.FatigueFactor)
	for i, st := range res.Stages {
		require.InDelta(t, want[i], st.Weight, 1e-12, "weight of day %d", i)
		if st.RestDay {
			require.Zero(t, st.DistanceM)
			require.Positive(t, i)
			require.Equal(t, res.Stages[i-1].End, st.Start)
			require.False(t, res.Stages[i-1].RestDay, "two rest days in a row at %d", i)
			if !s.hasDates() {
				require.Less(t, i, len(res.Stages)-1, "a planned rest day after the last riding day")
			}
			continue
		}
		require.GreaterOrEqual(t, len(st.Geometry), 2)
		require.Equal(t, st.Geometry[0], st.Start)
		require.Equal(t, st.Geometry[len(st.Geometry)-1], st.End)
		require.InDelta(t, route.Length(st.Geometry), st.DistanceM, 1e-6)
		g, l := route.Elevation(pts[st.RawFrom : st.RawTo+1])
		require.Equal(t, g, st.AscentM)
		require.Equal(t, l, st.DescentM)
	}
	if s.RestDayEvery > 0 {
		run := 0
		for i, st := range res.Stages {
			if st.RestDay {
				run = 0
				continue
			}
			run++
			if !s.hasDates() {
				require.LessOrEqual(t, run, s.RestDayEvery, "day %d rides %d days in a row", i, run)
			}
		}
	}

	// Targets add up to the route's riding time, and each day's riding time
	// recomputed from its geometry meets its target within the grade window
	// at its two ends.
	sumTarget := 0.0
	for _, st := range rides {
		sumTarget += st.TargetS
		require.InDelta(t, model.StageSeconds(st.Geometry, st.AscentM), st.RidingS, 1e-6)
		require.InDelta(t, st.TargetS, st.RidingS, dayTolS(st), "day %d riding time against its target", st.Index)
	}
	require.InDelta(t, routeS, sumTarget, routeS*1e-9, "the targets add up to the route's riding time")

	// No target below min(30 flat km, total/N).
	floor := min(30000/model.Speed(0), routeS/float64(len(rides)))
	for _, st := range rides {
		require.GreaterOrEqual(t, st.TargetS, floor*(1-1e-9), "day %d is under the floor", st.Index)
	}

	if res.OverCapacity != nil {
		// Only when the dates fix N.
		require.True(t, s.hasDates(), "over capacity without dates")
		require.Positive(t, res.OverCapacity.ExtraDays)
		fresh := 0.0
		for _, st := range rides {
			fresh += st.Weight * capacity
		}
		over := false
		for _, st := range rides {
			over = over || st.TargetS > st.Weight*capacity*(1+1e-9) || st.DistanceM >= capKm*1000-10
		}
		require.True(t, over || fresh < routeS, "over capacity but every day fits")
		return
	}
	// Within capacity and the caps: no day above the km cap, and no day
	// longer than its share of a fresh day.
	for _, st := range rides {
		require.LessOrEqual(t, st.DistanceM, capKm*1000, "day %d is above the cap", st.Index)
		require.LessOrEqual(t, st.TargetS, max(st.Weight*capacity, floor)*(1+1e-9), "day %d is over the rider's capacity", st.Index)
	}
	isCapped := func(i int) bool {
		return rides[i].DistanceM >= capKm*1000-10 || (s.EbikeMode && rides[i].DistanceM/1000 >= EbikeRangeKm(rides[i].AscentM)-1)
	}
	if !s.hasDates() && !s.EbikeMode {
		// The number of days is the least that fits: one fewer riding day,
		// each ridden to its full capacity or to the km cap, whichever
		// comes first, falls short of the route's end.
		w := ridingWeights(calendar(s, len(rides)-1))
		require.Less(t, greedyReach(dec, model, w, capacity, capKm*1000-1), routeM*(1-1e-9),
			"%d riding days would have done", len(rides)-1)
	}

	// Water-filling: a day is either capped (at the cap, wanting more), on
	// the floor, or holds its weight's share s·w of what the capped days
	// leave, s recomputed here from the targets.
	isFloor := func(i int) bool { return math.Abs(rides[i].TargetS-floor) <= 1e-6*floor }
	freeW, rest := 0.0, routeS
	for i := range rides {
		if isCapped(i) || isFloor(i) {
			rest -= rides[i].TargetS
		} else {
			freeW += rides[i].Weight
		}
	}
	if freeW == 0 {
		return
	}
	level := rest / freeW
	for i, st := range rides {
		share := level * st.Weight
		switch {
		case isCapped(i):
			require.LessOrEqual(t, st.TargetS, share*(1+1e-6)+1, "capped day %d got more than its share", st.Index)
		case isFloor(i):
			require.LessOrEqual(t, share, floor*(1+1e-6)+1, "floored day %d would have had more", st.Index)
		default:
			require.InDelta(t, share, st.TargetS, share*1e-6+1, "day %d against its weight's share", st.Index)
		}
	}
}

// dayTolS is how far a day's riding time recomputed from its geometry may
// differ from its target: the grade window is clipped at the day's two ends,
// where up to 100 m on each side are timed at a different grade.
func dayTolS(st Stage) float64 {
	return 2*100/(MinSpeedKmh/3.6) + 2*2*route.MinClimbRunM*NewModel(Defaults()).HiddenClimbSeconds()*3
}

// greedyReach walks the decimated route day by day, each day riding until
// its capacity·w_i of modelled time or capM metres, and returns the metres
// reached: a plain walk over the vertices, independent of the engine's
// profile and bisections.
func greedyReach(dec []route.Point, m Model, w []float64, capacity, capM float64) float64 {
	cumS := m.CumulativeSeconds(dec)
	cumM := make([]float64, len(dec))
	for i := 1; i < len(dec); i++ {
		cumM[i] = cumM[i-1] + route.Vincenty(dec[i-1], dec[i])
	}
	posM, posS, j := 0.0, 0.0, 0
	for _, wi := range w {
		limS, limM := posS+capacity*wi, posM+capM
		for j < len(dec)-1 && cumS[j+1] <= limS && cumM[j+1] <= limM {
			j++
		}
		if j == len(dec)-1 {
			return cumM[j]
		}
		// Inside segment j: both grow linearly, stop at the first limit.
		segS, segM := cumS[j+1]-cumS[j], cumM[j+1]-cumM[j]
		f := 1.0
		if segS > 0 {
			f = min(f, (limS-cumS[j])/segS)
		}
		if segM > 0 {
			f = min(f, (limM-cumM[j])/segM)
		}
		f = max(f, 0)
		posM, posS = cumM[j]+f*segM, cumS[j]+f*segS
	}
	return posM
}
