package pacing

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestPlanInvariantsOnGeneratedRoutes(t *testing.T) {
	t.Parallel()
	// Each seed draws a route (80–480 km, hilly or flat) and settings
	// (fatigue, penalty, cap, sometimes dates — too few or plenty — and
	// rest days) and checks every invariant on the plan.
	for seed := uint64(1); seed <= 24; seed++ {
		t.Run(fmt.Sprintf("random route and settings %d keep every invariant", seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 42))
			pts := randomRoute(seed, 2000+rng.IntN(10000), 40, seed%4 != 0)
			s := Defaults()
			s.FatigueFactor = 0.5 + rng.Float64()*0.5
			s.ElevationPenalty = 10 + rng.Float64()*190
			s.MaxDistancePerDayKm = 30 + rng.Float64()*120
			if seed%3 == 0 {
				s.StartDate = date(2026, 5, 1)
				s.EndDate = s.StartDate.AddDate(0, 0, 1+rng.IntN(12))
			}
			if seed%2 == 0 {
				s.RestDays = []int{3, 7}
				if s.hasDates() && s.calendarDays() <= 7 {
					s.RestDays = nil
				}
			}
			res, err := Plan(pts, s)
			require.NoError(t, err)
			checkInvariants(t, pts, s, res)
		})
	}
}

func TestPlanFlatEqualDays(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprintf("with fatigueFactor 1 on flat route %d every day is equal within 1 %%", seed), func(t *testing.T) {
			t.Parallel()
			pts := randomRoute(seed, 3000+int(seed)*1500, 45, false)
			s := Defaults()
			s.FatigueFactor = 1
			s.MaxDistancePerDayKm = 40 + float64(seed)*7
			res, err := Plan(pts, s)
			require.NoError(t, err)
			require.GreaterOrEqual(t, res.Days, 2)
			mean := res.DistanceM / float64(res.Days)
			for _, st := range res.Stages {
				require.InDelta(t, mean, st.DistanceM, mean*0.01, "day %d", st.Index)
			}
		})
	}
}

func TestPlanClimbingShortensDays(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprintf("of two equal-weight days on hilly route %d the one that climbs more has no more km", seed), func(t *testing.T) {
			t.Parallel()
			pts := randomRoute(seed+100, 8000, 40, true)
			s := Defaults()
			if seed%2 == 0 {
				s.FatigueFactor = 1 // every day has the same weight
			} else {
				s.RestDays = []int{3, 6} // days 0/4/7, 1/5/8… share weights
			}
			s.MaxDistancePerDayKm = 150 // high, so that the days are not capped
			s.StartDate, s.EndDate = date(2026, 6, 1), date(2026, 6, 10)
			res, err := Plan(pts, s)
			require.NoError(t, err)
			checkInvariants(t, pts, s, res)
			pairs := 0
			for _, a := range riding(res.Stages) {
				for _, b := range riding(res.Stages) {
					if a.Index == b.Index || a.Weight != b.Weight || a.AscentM <= b.AscentM {
						continue
					}
					// Cuts lie inside segments and broken climbing runs
					// move a few metres of D+: allow both days' cut
					// segments.
					tol := (endSegmentsEffortKm(a, s.ElevationPenalty) + endSegmentsEffortKm(b, s.ElevationPenalty)) * 1000
					require.LessOrEqual(t, a.DistanceM, b.DistanceM+tol,
						"day %d climbs %.0f m > day %d's %.0f m but rides %.1f km > %.1f km",
						a.Index, a.AscentM, b.Index, b.AscentM, a.DistanceM/1000, b.DistanceM/1000)
					pairs++
				}
			}
			require.Positive(t, pairs)
		})
	}
}

func TestPlanDeterministic(t *testing.T) {
	t.Parallel()

	t.Run("re-pacing an unchanged trip gives the same stages and hashes", func(t *testing.T) {
		t.Parallel()
		pts := randomRoute(7, 9000, 40, true)
		s := Defaults()
		s.StartDate, s.EndDate, s.RestDays = date(2026, 8, 1), date(2026, 8, 6), []int{3}
		a, err := Plan(pts, s)
		require.NoError(t, err)
		b, err := Plan(append([]route.Point(nil), pts...), s)
		require.NoError(t, err)
		require.Equal(t, a, b)
		for i := range a.Stages {
			require.Equal(t, a.Stages[i].ContentHash(s), b.Stages[i].ContentHash(s))
		}
	})
}

func TestPlanOverCapacity(t *testing.T) {
	t.Parallel()

	t.Run("dates with too few days raise the exact extra-day count and spread the excess", func(t *testing.T) {
		t.Parallel()
		for _, days := range []int{1, 2, 3, 5} {
			pts := randomRoute(uint64(days), 12000, 40, true)
			s := Defaults()
			s.StartDate = date(2026, 9, 1)
			s.EndDate = s.StartDate.AddDate(0, 0, days-1)
			if days == 1 {
				s.EndDate = s.StartDate.AddDate(0, 0, 1)
				s.RestDays = []int{1} // one riding day, then a rest day
			}
			res, err := Plan(pts, s)
			require.NoError(t, err)
			checkInvariants(t, pts, s, res)
			require.NotNil(t, res.OverCapacity, "%d days", days)
			ridingDays := res.RidingDays
			want := int(math.Ceil(res.DistanceM/1000/s.MaxDistancePerDayKm)) - ridingDays
			require.Equal(t, want, res.OverCapacity.ExtraDays)
		}
	})
}

func TestPlanShortRoutes(t *testing.T) {
	t.Parallel()

	t.Run("a route shorter than a day gives one stage flagged MIN_STAGES", func(t *testing.T) {
		t.Parallel()
		pts := randomRoute(3, 500, 40, true) // ≈ 20 km
		res, err := Plan(pts, Defaults())
		require.NoError(t, err)
		require.True(t, res.MinStages)
		require.Len(t, res.Stages, 1)
		require.Equal(t, pts[0], res.Stages[0].Start)
		require.Equal(t, pts[len(pts)-1], res.Stages[0].End)
		require.InDelta(t, res.DistanceM, res.Stages[0].DistanceM, 1e-6)
	})

	t.Run("a route that never moves is one stage, not a division by zero", func(t *testing.T) {
		t.Parallel()
		p := route.Point{Lat: 45, Lon: 6}
		res, err := Plan([]route.Point{p, p, p}, Defaults())
		require.NoError(t, err)
		require.True(t, res.MinStages)
		require.Len(t, res.Stages, 1)
		require.Zero(t, res.Stages[0].DistanceM)
	})

	t.Run("two days on a two-point route are cut inside the segment at a shared point", func(t *testing.T) {
		t.Parallel()
		// 1.5° of latitude ≈ 166 km, flat: two days of ≈ 83 km under a 100 km cap.
		pts := []route.Point{{Lat: 44, Lon: 5}, {Lat: 45.5, Lon: 5}}
		s := Defaults()
		s.FatigueFactor = 1
		s.MaxDistancePerDayKm = 100
		res, err := Plan(pts, s)
		require.NoError(t, err)
		require.Len(t, res.Stages, 2)
		require.Equal(t, res.Stages[0].End, res.Stages[1].Start)
		require.InDelta(t, 44.75, res.Stages[0].End.Lat, 0.01)
		require.InDelta(t, res.Stages[0].DistanceM, res.Stages[1].DistanceM, res.DistanceM*0.001)
	})

	t.Run("days inside a vertical step fold into one stage instead of zero-length days", func(t *testing.T) {
		t.Parallel()
		// 3 km of climbing at one place: 60 km-eq of effort on 0 km, so
		// four dated days would all cut inside it.
		pts := []route.Point{{Lat: 44, Lon: 5}, {Lat: 44, Lon: 5, Ele: 3000}}
		s := Defaults()
		s.StartDate, s.EndDate = date(2026, 1, 1), date(2026, 1, 4)
		res, err := Plan(pts, s)
		require.NoError(t, err)
		require.Len(t, res.Stages, 1)
		require.True(t, res.MinStages)
		require.Equal(t, pts[0], res.Stages[0].Start)
		require.Equal(t, pts[1], res.Stages[0].End)
		require.Equal(t, 3000.0, res.Stages[0].AscentM)
	})
}

func TestPlanRefusesBadInput(t *testing.T) {
	t.Parallel()

	t.Run("a route of one point is ErrEmptyRoute", func(t *testing.T) {
		t.Parallel()
		_, err := Plan([]route.Point{{Lat: 1, Lon: 1}}, Defaults())
		require.ErrorIs(t, err, ErrEmptyRoute)
	})

	t.Run("a NaN or out-of-range point is named by its index", func(t *testing.T) {
		t.Parallel()
		for _, bad := range []route.Point{{Lat: math.NaN()}, {Lat: 91}, {Lon: -181}, {Ele: math.Inf(1)}} {
			_, err := Plan([]route.Point{{Lat: 1, Lon: 1}, bad, {Lat: 1, Lon: 2}}, Defaults())
			require.ErrorIs(t, err, ErrInvalidPoint)
			require.Contains(t, err.Error(), "point 1")
		}
	})

	t.Run("invalid settings are refused before any work", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.ElevationPenalty = 0
		_, err := Plan(randomRoute(1, 10, 40, false), s)
		var se *SettingError
		require.True(t, errors.As(err, &se))
		require.Equal(t, "elevationPenalty", se.Field)
	})
}

func TestProfile(t *testing.T) {
	t.Parallel()

	t.Run("segment efforts add up to km plus the run-rule D+ over the penalty", func(t *testing.T) {
		t.Parallel()
		pts := randomRoute(11, 5000, 40, true)
		gain, _ := route.Elevation(pts)
		p := newProfile(pts, 50)
		require.InDelta(t, gain, p.cumAscRaw[len(pts)-1], 1e-6)
		require.InDelta(t, route.Length(route.Simplify(pts, route.DecimationToleranceM))+gain*1000/50, p.totalEff(), 1e-3)
		for j, r := range p.decRaw {
			require.Equal(t, p.dec[j], pts[r])
		}
	})

	t.Run("effort and metres positions are inverse of each other", func(t *testing.T) {
		t.Parallel()
		p := newProfile(randomRoute(12, 3000, 40, true), 50)
		for _, m := range []float64{0, 1234.5, p.totalM() / 3, p.totalM() - 1, p.totalM() + 500} {
			require.InDelta(t, m, p.metresAt(p.effortAt(m)), 1e-6)
		}
	})

	t.Run("a run of exactly 3 m counts nothing and its steps carry no ascent", func(t *testing.T) {
		t.Parallel()
		pts := []route.Point{{Ele: 100}, {Ele: 101}, {Ele: 103}, {Ele: 102}, {Ele: 106}, {Ele: 108}}
		require.Equal(t, []float64{0, 0, 0, 0, 4, 6}, countedAscent(pts))
	})
}

func BenchmarkPlan(b *testing.B) {
	pts := loadOslo(b)
	s := Defaults()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Plan(pts, s); err != nil {
			b.Fatal(err)
		}
	}
}
