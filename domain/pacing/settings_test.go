package pacing

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSettingsValidate(t *testing.T) {
	t.Parallel()

	t.Run("the defaults are DOMAIN §1's and valid", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		require.NoError(t, s.Validate())
		require.Equal(t, 0.9, s.FatigueFactor)
		require.Equal(t, 50.0, s.ElevationPenalty)
		require.Equal(t, 80.0, s.MaxDistancePerDayKm)
		require.Equal(t, 15.0, s.AverageSpeedKmh)
		require.Equal(t, 8, s.DepartureHour)
	})

	t.Run("each out-of-range value is refused naming its field", func(t *testing.T) {
		t.Parallel()
		cases := map[string]func(*Settings){
			"fatigueFactor":     func(s *Settings) { s.FatigueFactor = 0.49 },
			"elevationPenalty":  func(s *Settings) { s.ElevationPenalty = 0 },
			"maxDistancePerDay": func(s *Settings) { s.MaxDistancePerDayKm = 301 },
			"averageSpeed":      func(s *Settings) { s.AverageSpeedKmh = 4.9 },
			"departureHour":     func(s *Settings) { s.DepartureHour = 24 },
			"endDate":           func(s *Settings) { s.StartDate, s.EndDate = date(2026, 5, 2), date(2026, 5, 2) },
			"restDays":          func(s *Settings) { s.RestDays = []int{0} },
		}
		for field, mutate := range cases {
			s := Defaults()
			mutate(&s)
			err := s.Validate()
			require.ErrorIs(t, err, ErrInvalidSettings, field)
			var se *SettingError
			require.True(t, errors.As(err, &se))
			require.Equal(t, field, se.Field)
			require.Contains(t, err.Error(), field)
		}
	})

	t.Run("NaN is refused rather than slipping through the comparisons", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.MaxDistancePerDayKm = math.NaN()
		require.ErrorIs(t, s.Validate(), ErrInvalidSettings)
		s = Defaults()
		s.ElevationPenalty = math.Inf(1)
		require.ErrorIs(t, s.Validate(), ErrInvalidSettings)
	})

	t.Run("an end date without a start date is refused", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.EndDate = date(2026, 5, 2)
		var se *SettingError
		require.True(t, errors.As(s.Validate(), &se))
		require.Equal(t, "endDate", se.Field)
	})

	t.Run("rest days must be inside the dates, listed once and never adjacent", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.StartDate, s.EndDate = date(2026, 5, 1), date(2026, 5, 10)
		for _, rest := range [][]int{{10}, {3, 3}, {4, 3}, {-1}} {
			s.RestDays = rest
			require.ErrorIs(t, s.Validate(), ErrInvalidSettings, "%v", rest)
		}
		s.RestDays = []int{6, 3, 9}
		require.NoError(t, s.Validate())
	})
}

func TestSettingsHash(t *testing.T) {
	t.Parallel()

	t.Run("changes with every setting that moves the split and with nothing else", func(t *testing.T) {
		t.Parallel()
		base := SettingsHash(Defaults())
		moves := []func(*Settings){
			func(s *Settings) { s.FatigueFactor = 0.8 },
			func(s *Settings) { s.ElevationPenalty = 40 },
			func(s *Settings) { s.MaxDistancePerDayKm = 100 },
			func(s *Settings) { s.StartDate = date(2026, 5, 1) },
			func(s *Settings) { s.StartDate, s.EndDate = date(2026, 5, 1), date(2026, 5, 9) },
			func(s *Settings) { s.RestDays = []int{2} },
		}
		for i, m := range moves {
			s := Defaults()
			m(&s)
			require.NotEqual(t, base, SettingsHash(s), "change %d", i)
		}
		stays := []func(*Settings){
			func(s *Settings) { s.AverageSpeedKmh = 22 },
			func(s *Settings) { s.DepartureHour = 6 },
			func(s *Settings) { s.EbikeMode = true },
		}
		for i, m := range stays {
			s := Defaults()
			m(&s)
			require.Equal(t, base, SettingsHash(s), "change %d", i)
		}
	})

	t.Run("treats rest days as a set and dates by their calendar day", func(t *testing.T) {
		t.Parallel()
		a, b := Defaults(), Defaults()
		a.RestDays, b.RestDays = []int{2, 5}, []int{5, 2}
		a.StartDate, b.StartDate = date(2026, 5, 1), date(2026, 5, 1).Add(13*60*60*1e9)
		require.Equal(t, SettingsHash(a), SettingsHash(b))
		require.Len(t, SettingsHash(a).String(), 64)
	})
}
