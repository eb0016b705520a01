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

	t.Run("default settings satisfy every invariant with days within the rider's hours and the cap", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		res, err := Plan(pts, s)
		require.NoError(t, err)
		checkInvariants(t, pts, s, res)
		require.Nil(t, res.OverCapacity)
		require.False(t, res.MinStages)
		// 624.6 km and 6,421 m of climbing: ≈ 38 h of riding at 18 km/h,
		// which the intermediate rider (6 h fresh, fatigue settling at
		// 4.8 h) rides in 8 days.
		require.Equal(t, 8, res.Days)
		require.InDelta(t, 38.2, res.RidingS/3600, 0.5)
		for _, st := range res.Stages {
			require.LessOrEqual(t, st.DistanceM, 150000.0)
			require.LessOrEqual(t, st.RidingS, 6*3600*(1+1e-6))
		}
		// The first day is the freshest and the longest in time.
		for _, st := range res.Stages[1:] {
			require.Less(t, st.RidingS, res.Stages[0].RidingS)
		}
	})

	t.Run("the reference formula gives the giant last day Roadbook avoids", func(t *testing.T) {
		t.Parallel()
		old := Defaults()
		old.MaxDistancePerDayKm, old.AverageSpeedKmh = 80, 15
		days := referencePlan(pts, old)
		t.Logf("reference days (km): %.0f", days)
		require.Len(t, days, 8)
		require.Greater(t, days[7], 100.0, "reference last day: %v", days)
		res, err := Plan(pts, old)
		require.NoError(t, err)
		require.Less(t, res.Stages[len(res.Stages)-1].DistanceM/1000, days[7]-30)
	})

	t.Run("five fixed days raise over capacity with the days the rider needs and no giant last day", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.StartDate = date(2026, 7, 1)
		s.EndDate = date(2026, 7, 5)
		res, err := Plan(pts, s)
		require.NoError(t, err)
		checkInvariants(t, pts, s, res)
		require.NotNil(t, res.OverCapacity)
		require.Equal(t, 3, res.OverCapacity.ExtraDays) // the 8 days the dates-free plan takes
		require.Equal(t, 5, res.Days)
		for _, st := range res.Stages {
			// 624.6 km in 5 days: 125 km on average, under the 150 km cap.
			require.LessOrEqual(t, st.DistanceM, 150000.0)
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
		require.InDelta(t, 0.81, res.Stages[2].Weight, 1e-12)
		require.Equal(t, 0.8, res.Stages[3].Weight)
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
