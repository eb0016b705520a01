package alert

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type found struct {
	Stage int
	Code  Code
}

func summary(as []Alert) []found {
	var out []found
	for _, a := range as {
		out = append(out, found{a.StageIndex, a.Code})
	}
	return out
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	// Five stages north from Paris, from Friday 12 July 2024 (14 July is a Sunday and Bastille Day).
	stages := chain(parisPt, 5, 60)
	for i := range stages {
		stages[i].Date = time.Date(2024, time.July, 12+i, 0, 0, 0, 0, time.UTC)
	}
	stages[1].AscentM = 8000                     // elevation_gain (an e-bike climbs it within the day); e-bike range 0 km < 60 km
	stages[2].Start = north(stages[1].End, 300)  // continuity warning
	stages[3].Start = north(stages[2].End, 2000) // continuity critical
	stages[4].DistanceM = 210000                 // arrives after twilight, over the rider's day
	stages[0].Points = profile([]float64{10, 10, 10, 10, 10}, nil)
	set := DefaultSettings()
	set.AverageSpeedKmh, set.EbikeMode = 15, true

	got, err := Evaluate(stages, set, zones(t))
	require.NoError(t, err)
	require.Equal(t, []found{
		{0, CodeSteepGradient},
		{1, CodeElevationGain},
		{1, CodeEbikeRangeExceeded},
		{2, CodeContinuityGapWarning},
		{2, CodeCalendarSunday},
		{2, CodeCalendarPublicHoliday},
		{3, CodeContinuityGapCritical},
		{3, CodeRestDaySuggested},
		{4, CodeStageOverCapacity},
		{4, CodeEbikeRangeExceeded},
		{4, CodeSunsetArrivalAfterTwilight},
	}, summary(got))

	t.Run("the same input gives the same alerts", func(t *testing.T) {
		again, err := Evaluate(stages, set, zones(t))
		require.NoError(t, err)
		require.Equal(t, got, again)
	})
}

func TestEvaluateWithoutDates(t *testing.T) {
	t.Parallel()
	t.Run("an undated trip needs no zone finder and skips the date rules", func(t *testing.T) {
		t.Parallel()
		stages := chain(lyon, 5, 100)
		got, err := Evaluate(stages, DefaultSettings(), nil)
		require.NoError(t, err)
		require.Equal(t, []found{{3, CodeRestDaySuggested}}, summary(got))
	})
	t.Run("an empty trip has no alerts", func(t *testing.T) {
		t.Parallel()
		got, err := Evaluate(nil, DefaultSettings(), nil)
		require.NoError(t, err)
		require.Empty(t, got)
	})
}

func TestEvaluateRefusesBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func([]Stage, *Settings)
		want   string
	}{
		{"a speed out of range", func(_ []Stage, s *Settings) { s.AverageSpeedKmh = 60 }, "averageSpeed: 60"},
		{"a departure hour out of range", func(_ []Stage, s *Settings) { s.DepartureHour = 24 }, "departureHour: 24"},
		{"stages out of order", func(st []Stage, _ *Settings) { st[1].Index = 2 }, "position 1 has index 2"},
		{"a NaN distance", func(st []Stage, _ *Settings) { st[0].DistanceM = math.NaN() }, "stage 0 distance NaN"},
		{"a negative ascent", func(st []Stage, _ *Settings) { st[1].AscentM = -5 }, "stage 1 ascent -5"},
		{"a latitude out of range", func(st []Stage, _ *Settings) { st[1].End.Lat = 91 }, "stage 1 end: latitude 91"},
		{"a dated stage without a zone finder", func(st []Stage, _ *Settings) { st[1].Date = solstice2024 }, "stage 1 has a date but no ZoneFinder"},
	}
	for _, c := range cases {
		t.Run("refuses "+c.name, func(t *testing.T) {
			t.Parallel()
			stages := chain(lyon, 2, 50)
			set := DefaultSettings()
			c.mutate(stages, &set)
			_, err := Evaluate(stages, set, nil)
			require.ErrorIs(t, err, ErrInvalidInput)
			require.ErrorContains(t, err, c.want)
		})
	}
}
