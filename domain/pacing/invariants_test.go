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
	routeM := route.Length(route.Simplify(pts, route.DecimationToleranceM))
	gain, _ := route.Elevation(pts)
	routeEffort := routeM/1000 + gain/s.ElevationPenalty
	capKm := s.MaxDistancePerDayKm
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

	// Number of days: from the dates, or the smallest N ≥ ceil(km/cap) that
	// keeps every day within the cap, which full-cap days always do.
	if s.hasDates() {
		require.Equal(t, s.calendarDays(), res.Days)
	} else {
		require.Equal(t, max(1, int(math.Ceil(routeM/1000/capKm))), res.RidingDays)
	}

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

	// Fatigue weights within blocks; rest days carry 0 km where the rider is.
	want := expectedWeights(res.Stages, s.FatigueFactor)
	for i, st := range res.Stages {
		require.InDelta(t, want[i], st.Weight, 1e-12, "weight of day %d", i)
		if st.RestDay {
			require.Zero(t, st.DistanceM)
			require.Equal(t, res.Stages[i-1].End, st.Start)
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

	// Targets add up to the route's effort, and each day's effort recomputed
	// from its geometry and raw points meets its target within the effort of
	// the segments its cuts lie in.
	sumTarget, sumTol := 0.0, 0.0
	efforts := make([]float64, len(rides))
	tols := make([]float64, len(rides))
	for i, st := range rides {
		sumTarget += st.TargetEffortKm
		efforts[i] = dayEffortKm(pts, st, s.ElevationPenalty)
		tols[i] = endSegmentsEffortKm(st, s.ElevationPenalty)
		sumTol += tols[i]
		require.InDelta(t, st.TargetEffortKm, efforts[i], tols[i], "day %d effort against its target", st.Index)
	}
	require.InDelta(t, routeEffort, sumTarget, routeEffort*1e-9, "the targets add up to the route's effort")

	// No target below min(30 km, total/N).
	floor := min(30, routeEffort/float64(len(rides)))
	for _, st := range rides {
		require.GreaterOrEqual(t, st.TargetEffortKm, floor*(1-1e-9), "day %d is under the floor", st.Index)
	}

	if res.OverCapacity != nil {
		// Only when the dates fix N, and then every day is a full day: the
		// excess is spread, not piled on the last day.
		require.True(t, s.hasDates(), "over capacity without dates")
		require.Equal(t, int(math.Ceil(routeM/1000/capKm))-len(rides), res.OverCapacity.ExtraDays)
		// The last day has the least weight, so the least excess effort; in
		// km, terrain can move that a little, not by a day's worth.
		longest := 0.0
		for _, st := range rides {
			require.GreaterOrEqual(t, st.DistanceM, capKm*1000-1, "day %d is not a full day", st.Index)
			if st.Index != rides[len(rides)-1].Index {
				longest = max(longest, st.DistanceM)
			}
		}
		if len(rides) > 1 {
			require.LessOrEqual(t, rides[len(rides)-1].DistanceM, longest*1.25, "the last day is a giant")
		}
		return
	}
	// No day above the cap.
	for _, st := range rides {
		require.LessOrEqual(t, st.DistanceM, capKm*1000, "day %d is above the cap", st.Index)
	}

	// Water-filling: a day is either capped (at the cap km, wanting more),
	// on the floor, or holds its weight's share s·w of what the capped days
	// leave, s recomputed here from the recomputed efforts.
	isCapped := func(i int) bool { return rides[i].DistanceM >= capKm*1000-10 }
	isFloor := func(i int) bool { return math.Abs(efforts[i]-floor) <= tols[i] }
	freeW, rest := 0.0, routeEffort
	for i := range rides {
		if isCapped(i) || isFloor(i) {
			rest -= efforts[i]
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
			require.LessOrEqual(t, efforts[i], share+tols[i]+st.Weight*sumTol/freeW, "capped day %d got more than its share", st.Index)
		case isFloor(i):
			require.LessOrEqual(t, share, floor+tols[i]+st.Weight*sumTol/freeW, "floored day %d would have had more", st.Index)
		default:
			require.InDelta(t, share, efforts[i], tols[i]+st.Weight*sumTol/freeW, "day %d against its weight's share", st.Index)
		}
	}
}
