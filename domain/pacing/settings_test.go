package pacing

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSettingsValidate(t *testing.T) {
	t.Parallel()

	t.Run("the defaults are the intermediate preset leaving at 8 and valid", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		require.NoError(t, s.Validate())
		require.Equal(t, 0.9, s.FatigueFactor)
		require.Equal(t, 50.0, s.ElevationPenalty)
		require.Equal(t, 150.0, s.MaxDistancePerDayKm)
		require.Equal(t, 18.0, s.AverageSpeedKmh)
		require.Equal(t, 6.0, s.DailyRidingHours)
		require.Zero(t, s.RestDayEvery)
		require.Equal(t, 8, s.DepartureHour)
		require.Equal(t, PresetIntermediate, PresetOf(s))
	})

	t.Run("each out-of-range value is refused naming its field", func(t *testing.T) {
		t.Parallel()
		cases := map[string]func(*Settings){
			"fatigueFactor":     func(s *Settings) { s.FatigueFactor = 0.49 },
			"elevationPenalty":  func(s *Settings) { s.ElevationPenalty = 0 },
			"maxDistancePerDay": func(s *Settings) { s.MaxDistancePerDayKm = 301 },
			"averageSpeed":      func(s *Settings) { s.AverageSpeedKmh = 4.9 },
			"departureHour":     func(s *Settings) { s.DepartureHour = 24 },
			"dailyRidingHours":  func(s *Settings) { s.DailyRidingHours = 0.5 },
			"restDayEvery":      func(s *Settings) { s.RestDayEvery = 1 },
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
			func(s *Settings) { s.AverageSpeedKmh = 22 },
			func(s *Settings) { s.DailyRidingHours = 5 },
			func(s *Settings) { s.RestDayEvery = 5 },
			func(s *Settings) { s.EbikeMode = true },
		}
		for i, m := range moves {
			s := Defaults()
			m(&s)
			require.NotEqual(t, base, SettingsHash(s), "change %d", i)
		}
		stays := []func(*Settings){
			func(s *Settings) { s.DepartureHour = 6 },
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

func TestPresets(t *testing.T) {
	t.Parallel()

	t.Run("every preset is valid, named by its values, and harder to easier in every value", func(t *testing.T) {
		t.Parallel()
		var prev Settings
		for i, p := range Presets() {
			s := p.Apply(Defaults())
			require.NoError(t, s.Validate(), p)
			require.Equal(t, p, PresetOf(s))
			require.True(t, p.Valid())
			if i > 0 {
				require.Greater(t, s.AverageSpeedKmh, prev.AverageSpeedKmh, p)
				require.Greater(t, s.DailyRidingHours, prev.DailyRidingHours, p)
				require.Greater(t, s.ElevationPenalty, prev.ElevationPenalty, p)
				require.Greater(t, s.MaxDistancePerDayKm, prev.MaxDistancePerDayKm, p)
				require.Greater(t, s.FatigueFactor, prev.FatigueFactor, p)
			}
			prev = s
		}
	})

	t.Run("editing one value of a preset makes the settings custom; custom and unknown names change nothing", func(t *testing.T) {
		t.Parallel()
		s := PresetExpert.Apply(Defaults())
		s.DailyRidingHours = 7.5
		require.Equal(t, PresetCustom, PresetOf(s))
		require.Equal(t, s, PresetCustom.Apply(s))
		require.Equal(t, s, Preset("racer").Apply(s))
		require.False(t, Preset("racer").Valid())
		require.True(t, PresetCustom.Valid())
	})

	t.Run("a preset keeps the dates, the departure and the e-bike mode", func(t *testing.T) {
		t.Parallel()
		s := Defaults()
		s.StartDate, s.EndDate, s.DepartureHour, s.EbikeMode = date(2026, 6, 1), date(2026, 6, 9), 6, true
		b := PresetBeginner.Apply(s)
		require.Equal(t, s.StartDate, b.StartDate)
		require.Equal(t, s.EndDate, b.EndDate)
		require.Equal(t, 6, b.DepartureHour)
		require.True(t, b.EbikeMode)
		require.Equal(t, 14.0, b.AverageSpeedKmh)
	})
}
