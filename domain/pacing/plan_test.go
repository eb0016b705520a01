package pacing

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestPlanInvariantsOnGeneratedRoutes(t *testing.T) {
	t.Parallel()
	// Each seed draws a route (80–480 km, hilly or flat) and settings
	// (fatigue, penalty, cap, speed, daily hours, sometimes dates — too few
	// or plenty —, rest days, a rest-day rhythm, e-bike mode) and checks
	// every invariant on the plan.
	for seed := uint64(1); seed <= 24; seed++ {
		t.Run(fmt.Sprintf("random route and settings %d keep every invariant", seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 42))
			pts := randomRoute(seed, 2000+rng.IntN(10000), 40, seed%4 != 0)
			s := Defaults()
			s.FatigueFactor = 0.5 + rng.Float64()*0.5
			s.ElevationPenalty = 10 + rng.Float64()*190
			s.MaxDistancePerDayKm = 30 + rng.Float64()*120
			s.AverageSpeedKmh = 10 + rng.Float64()*20
			s.DailyRidingHours = 2 + rng.Float64()*8
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
			if seed%5 == 1 {
				s.RestDayEvery = 2 + rng.IntN(4)
			}
			s.EbikeMode = seed%7 == 3
			res, err := Plan(pts, s)
			require.NoError(t, err)
			checkInvariants(t, pts, s, res)
		})
	}
}

func TestPlanGeneratedProfiles(t *testing.T) {
	t.Parallel()
	// With fatigue off and caps that do not bind, the engine's promise is
	// days of equal riding time whatever the terrain, and km that follow
	// the terrain: fewer on a climb, more downhill.
	profiles := map[string]func(x float64) float64{
		"flat": func(float64) float64 { return 200 },
		"one big pass": func(x float64) float64 {
			// 100 km flat, 1,800 m up over 30 km (6 %), down over 30 km, 140 km flat.
			switch {
			case x < 100e3:
				return 400
			case x < 130e3:
				return 400 + 1800*(x-100e3)/30e3
			case x < 160e3:
				return 2200 - 1800*(x-130e3)/30e3
			}
			return 400
		},
		"saw-tooth": func(x float64) float64 {
			p := math.Mod(x, 20e3) / 10e3 // 300 m up over 10 km, down over 10 km
			return 300 + 300*math.Min(p, 2-p)
		},
		"descending": func(x float64) float64 { return 2300 - 2000*x/300e3 },
	}
	for name, ele := range profiles {
		t.Run(fmt.Sprintf("%s: equal riding days, every invariant kept", name), func(t *testing.T) {
			t.Parallel()
			pts := line(300e3, ele)
			s := Defaults()
			s.FatigueFactor = 1
			s.MaxDistancePerDayKm = 300
			res, err := Plan(pts, s)
			require.NoError(t, err)
			checkInvariants(t, pts, s, res)
			require.GreaterOrEqual(t, res.RidingDays, 3)
			mean := res.RidingS / float64(res.RidingDays)
			for _, st := range riding(res.Stages) {
				require.InDelta(t, mean, st.RidingS, mean*0.01, "day %d", st.Index)
				require.LessOrEqual(t, st.RidingS, s.DailyRidingHours*3600*(1+1e-6))
			}
			// The number of days follows from the riding time: the least
			// number of full days that holds it.
			require.Equal(t, int(math.Ceil(res.RidingS/(s.DailyRidingHours*3600))), res.RidingDays)
		})
	}

	t.Run("the day over the pass is the shortest in km and the descending days are the longest", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.FatigueFactor = 1
		s.MaxDistancePerDayKm = 300
		res, err := Plan(line(300e3, profiles["one big pass"]), s)
		require.NoError(t, err)
		var climbing, flatKm []float64
		for _, st := range riding(res.Stages) {
			if st.AscentM > 500 {
				climbing = append(climbing, st.DistanceM)
			} else if st.AscentM < 50 && st.DescentM < 50 {
				flatKm = append(flatKm, st.DistanceM)
			}
		}
		require.NotEmpty(t, climbing)
		require.NotEmpty(t, flatKm)
		for _, c := range climbing {
			for _, f := range flatKm {
				require.Less(t, c, f)
			}
		}
		flat, err := Plan(line(300e3, profiles["flat"]), s)
		require.NoError(t, err)
		down, err := Plan(line(300e3, profiles["descending"]), s)
		require.NoError(t, err)
		require.Greater(t, riding(flat.Stages)[0].DistanceM*1.05, riding(down.Stages)[0].DistanceM*0.8)
		require.Less(t, down.RidingDays, flat.RidingDays+1)
		require.Greater(t, down.DistanceM/down.RidingS, flat.DistanceM/flat.RidingS, "downhill covers more km an hour")
	})

	t.Run("a km cap below the rider's day binds on the flat and adds days", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.FatigueFactor = 1
		s.MaxDistancePerDayKm = 60 // 6 h at 18 km/h would be 108 km
		pts := line(300e3, profiles["flat"])
		res, err := Plan(pts, s)
		require.NoError(t, err)
		checkInvariants(t, pts, s, res)
		require.Equal(t, int(math.Ceil(res.DistanceM/60000)), res.RidingDays)
		for _, st := range riding(res.Stages) {
			require.LessOrEqual(t, st.DistanceM, 60000.0)
		}
	})
}

func TestPlanRestDayRhythm(t *testing.T) {
	t.Parallel()

	t.Run("restDayEvery plans a rest day after every N riding days and resets fatigue", func(t *testing.T) {
		t.Parallel()
		pts := randomRoute(41, 12500, 40, true) // ≈ 500 km
		s := Defaults()
		s.RestDayEvery = 3
		s.DailyRidingHours = 3
		res, err := Plan(pts, s)
		require.NoError(t, err)
		checkInvariants(t, pts, s, res)
		for i, st := range res.Stages {
			require.Equal(t, i%4 == 3, st.RestDay, "day %d", i)
		}
		require.False(t, res.Stages[len(res.Stages)-1].RestDay)
		require.Equal(t, 1.0, res.Stages[4].Weight)
		require.InDelta(t, 0.81, res.Stages[2].Weight, 1e-12)
	})

	t.Run("without a rhythm fatigue settles at the floor instead of vanishing", func(t *testing.T) {
		t.Parallel()
		pts := randomRoute(42, 25000, 40, false) // ≈ 1,000 km
		s := Defaults()
		s.DailyRidingHours = 2.5
		res, err := Plan(pts, s)
		require.NoError(t, err)
		rides := riding(res.Stages)
		require.Greater(t, len(rides), 15)
		last := rides[len(rides)-1]
		require.Equal(t, FatigueFloor, last.Weight)
		require.InDelta(t, rides[len(rides)-2].RidingS, last.RidingS, last.RidingS*0.01)
		require.Equal(t, 4, DaysToFloor(0.9))
		require.Equal(t, 3, DaysToFloor(0.85))
		require.Equal(t, 6, DaysToFloor(0.95))
		require.Zero(t, DaysToFloor(1))
	})
}

func TestPlanEbike(t *testing.T) {
	t.Parallel()

	t.Run("every e-bike day stays within the battery range of its climbing", func(t *testing.T) {
		t.Parallel()
		for seed := uint64(1); seed <= 4; seed++ {
			pts := randomRoute(seed+300, 9000, 40, true)
			s := Defaults()
			s.EbikeMode = true
			s.DailyRidingHours = 8
			res, err := Plan(pts, s)
			require.NoError(t, err)
			checkInvariants(t, pts, s, res)
			for _, st := range riding(res.Stages) {
				require.LessOrEqual(t, st.DistanceM/1000, EbikeRangeKm(st.AscentM), "seed %d day %d (+%.0f m)", seed, st.Index, st.AscentM)
			}
		}
	})
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

	t.Run("dates with too few days raise the extra-day count that would fit and spread the excess", func(t *testing.T) {
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
			// As many riding days as the extra count adds fit the rider,
			// one fewer does not.
			fit := res.RidingDays + res.OverCapacity.ExtraDays
			free := s
			free.StartDate, free.EndDate, free.RestDays = time.Time{}, time.Time{}, nil
			undated, err := Plan(pts, free)
			require.NoError(t, err)
			require.LessOrEqual(t, undated.RidingDays, fit, "%d days", days)
		}
	})

	t.Run("enough dates for the km cap but not for the rider's hours keep every day under the cap", func(t *testing.T) {
		t.Parallel()
		pts := line(280e3, func(float64) float64 { return 100 })
		s := Defaults()
		s.FatigueFactor = 1
		s.StartDate, s.EndDate = date(2026, 7, 1), date(2026, 7, 2) // 2 × 150 km: the cap holds
		res, err := Plan(pts, s)
		require.NoError(t, err)
		checkInvariants(t, pts, s, res)
		require.NotNil(t, res.OverCapacity)
		require.Equal(t, 1, res.OverCapacity.ExtraDays) // ≈ 287 km at 18 km/h is 16 h: 3 days of 6 h
		for _, st := range res.Stages {
			require.LessOrEqual(t, st.DistanceM, 150000.0)
			require.Greater(t, st.RidingS, 6*3600.0)
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
		s.DailyRidingHours = 12
		res, err := Plan(pts, s)
		require.NoError(t, err)
		require.Len(t, res.Stages, 2)
		require.Equal(t, res.Stages[0].End, res.Stages[1].Start)
		require.InDelta(t, 44.75, res.Stages[0].End.Lat, 0.01)
		require.InDelta(t, res.Stages[0].DistanceM, res.Stages[1].DistanceM, res.DistanceM*0.001)
	})

	t.Run("a vertical step takes no riding time and makes one stage instead of zero-length days", func(t *testing.T) {
		t.Parallel()
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

	t.Run("riding times are the model's on the decimated route and counted ascent is the run rule's", func(t *testing.T) {
		t.Parallel()
		pts := randomRoute(11, 5000, 40, true)
		gain, _ := route.Elevation(pts)
		m := NewModel(Defaults())
		p := newProfile(pts, m)
		require.InDelta(t, gain, p.cumAscRaw[len(pts)-1], 1e-6)
		dec := route.Simplify(pts, route.DecimationToleranceM)
		require.InDelta(t, m.StageSeconds(dec, gain), p.totalEff(), p.totalEff()*0.01)
		for j, r := range p.decRaw {
			require.Equal(t, p.dec[j], pts[r])
		}
	})

	t.Run("effort and metres positions are inverse of each other", func(t *testing.T) {
		t.Parallel()
		p := newProfile(randomRoute(12, 3000, 40, true), NewModel(Defaults()))
		for _, m := range []float64{0, 1234.5, p.totalM() / 3, p.totalM() - 1, p.totalM() + 500} {
			require.InDelta(t, m, p.metresAt(p.effortAt(m)), 1e-6)
		}
	})

	t.Run("the battery position grows by a km per 25 m climbed", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.EbikeMode = true
		pts := randomRoute(13, 3000, 40, true)
		p := newProfile(pts, NewModel(s))
		gain, _ := route.Elevation(pts)
		require.InDelta(t, p.totalM()+gain*40, p.cumBat[len(p.cumBat)-1], 1e-6)
		end := p.batteryEndM(1000, 20000)
		require.InDelta(t, 20000, p.batAt(end)-p.batAt(1000), 1e-6)
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
