package pacing

import (
	"math"
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestPlanOsloTrondheim(t *testing.T) {
	t.Parallel()
	pts := loadOslo(t)

	t.Run("default settings satisfy every invariant with eight days within 80 km", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		res, err := Plan(pts, s)
		require.NoError(t, err)
		checkInvariants(t, pts, s, res)
		require.Nil(t, res.OverCapacity)
		require.False(t, res.MinStages)
		// 624.6 km decimated: ceil(624.6/80) = 8 days.
		require.Equal(t, 8, res.Days)
		for _, st := range res.Stages {
			require.LessOrEqual(t, st.DistanceM, 80000.0, "no 114 km last day")
		}
		// Independently: the fatigue weights ask 124.6 km-eq of day 1 (753 / Σ0.9^k),
		// far over 80 km, so the first days are capped and the last day, the
		// lightest, is the shortest.
		last := res.Stages[len(res.Stages)-1]
		for _, st := range res.Stages[:len(res.Stages)-1] {
			require.Greater(t, st.DistanceM, last.DistanceM)
		}
		// The first six days ride the full cap (to the metre).
		for _, st := range res.Stages[:6] {
			require.InDelta(t, 80000, st.DistanceM, 10, "day %d", st.Index)
		}
	})

	t.Run("the reference formula gives the giant last day Roadbook avoids", func(t *testing.T) {
		t.Parallel()
		days := referencePlan(pts, Defaults())
		t.Logf("reference days (km): %.0f", days)
		require.Len(t, days, 8)
		require.Greater(t, days[7], 100.0, "reference last day: %v", days)
		res, err := Plan(pts, Defaults())
		require.NoError(t, err)
		require.Less(t, res.Stages[7].DistanceM/1000, days[7]-30)
	})

	t.Run("five fixed days raise over capacity with three extra days and no giant last day", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.StartDate = date(2026, 7, 1)
		s.EndDate = date(2026, 7, 5)
		res, err := Plan(pts, s)
		require.NoError(t, err)
		checkInvariants(t, pts, s, res)
		require.NotNil(t, res.OverCapacity)
		require.Equal(t, 3, res.OverCapacity.ExtraDays) // ceil(624.6/80) − 5
		require.Equal(t, 5, res.Days)
		for _, st := range res.Stages {
			// 624.6 km in 5 days: 125 km on average; the spread by weight
			// keeps every day between the cap and twice the average.
			require.Less(t, st.DistanceM, 2*624639.0/5)
		}
		require.Equal(t, date(2026, 7, 5), res.Stages[4].Date)
	})

	t.Run("a rest day resets fatigue and the plan still covers the route", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.StartDate = date(2026, 7, 1)
		s.EndDate = date(2026, 7, 10)
		s.RestDays = []int{4}
		res, err := Plan(pts, s)
		require.NoError(t, err)
		checkInvariants(t, pts, s, res)
		require.Nil(t, res.OverCapacity)
		require.True(t, res.Stages[4].RestDay)
		require.Equal(t, 1.0, res.Stages[5].Weight)
		require.InDelta(t, math.Pow(0.9, 3), res.Stages[3].Weight, 1e-12)
		require.Equal(t, date(2026, 7, 5), res.Stages[4].Date)
	})
}

// referencePlan is DOMAIN §3's reference formula, kept only as an oracle to
// show what Roadbook's engine avoids: day km from
// clamp(base·ff^i − P, 30, cap), cut at the first decimated vertex where the
// running km reaches the target, the last day taking the rest.
func referencePlan(pts []route.Point, s Settings) []float64 {
	dec := route.Simplify(pts, route.DecimationToleranceM)
	totalKm := route.Length(dec) / 1000
	gain, _ := route.Elevation(pts)
	n := max(1, int(math.Ceil(totalKm/s.MaxDistancePerDayKm)))
	p := gain / s.ElevationPenalty / float64(n)
	sum := 0.0
	for i := range n {
		sum += math.Pow(s.FatigueFactor, float64(i))
	}
	base := (totalKm + p*float64(n)) / sum
	var days []float64
	run, start := 0.0, 0.0
	day := 0
	target := func(i int) float64 {
		return min(max(base*math.Pow(s.FatigueFactor, float64(i))-p, 30), s.MaxDistancePerDayKm)
	}
	for j := 1; j < len(dec) && day < n-1; j++ {
		run += route.Vincenty(dec[j-1], dec[j]) / 1000
		if run-start >= target(day) {
			days = append(days, run-start)
			start = run
			day++
		}
	}
	return append(days, totalKm-start)
}
