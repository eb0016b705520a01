package alert

import (
	"testing"
	"time"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

var (
	parisPt       = route.Point{Lat: 48.8566, Lon: 2.3522}
	tromso        = route.Point{Lat: 69.6492, Lon: 18.9553}
	longyearbyen  = route.Point{Lat: 78.2232, Lon: 15.6267}
	solstice2024  = time.Date(2024, time.June, 21, 0, 0, 0, 0, time.UTC)
	midwinter2024 = time.Date(2024, time.December, 21, 0, 0, 0, 0, time.UTC)
)

func TestSunsetArrival(t *testing.T) {
	t.Parallel()
	// Paris, 21 June 2024: civil dusk 22:40 CEST (published).
	cases := []struct {
		name       string
		end        route.Point
		day        time.Time
		km         float64
		dep        int
		want       bool
		wantAction *Action
	}{
		// 200 km at 15 km/h: 13.33 h riding + 6×10 min + 1 h lunch = 15.33 h → 23:20.
		// Suggestion max(5, floor(22.68 − 15.33)) = 7.
		{"a 200 km day leaving at 8 arrives in the dark and should leave at 7", parisPt, solstice2024, 200, 8, true,
			&Action{Kind: ActionSetDepartureHour, DepartureHour: 7}},
		// 100 km: 6.67 h + 30 min + 1 h → 16:10.
		{"a 100 km day arrives in daylight", parisPt, solstice2024, 100, 8, false, nil},
		// 250 km leaving at 5: 16.67 h + 80 min + 1 h = 19 h → 24:00; max(5, floor(3.68)) = 5 is not earlier.
		{"a day too long for the daylight gets no departure to try", parisPt, solstice2024, 250, 5, true, nil},
		{"midnight sun means no dark arrival however late", tromso, solstice2024, 300, 8, false, nil},
		{"polar night without civil twilight is always dark and no departure helps", longyearbyen, midwinter2024, 20, 10, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := riding(3, north(c.end, -c.km*1000), c.end, c.km, 0)
			s.Date = c.day
			set := DefaultSettings()
			set.AverageSpeedKmh, set.DepartureHour = 15, c.dep
			a, ok, err := sunsetArrival(s, set, pacing.NewModel(set), zones(t))
			require.NoError(t, err)
			require.Equal(t, c.want, ok)
			if !ok {
				return
			}
			require.Equal(t, CodeSunsetArrivalAfterTwilight, a.Code)
			require.Equal(t, SeverityWarning, a.Severity)
			require.Equal(t, 3, a.StageIndex)
			require.Equal(t, c.wantAction, a.Action)
			require.InDelta(t, EstimateRiderTime(s, set).ArrivalHour(), a.Value, 1e-9)
			require.True(t, a.HasPoint)
			require.Equal(t, c.end.Lat, a.Lat)
		})
	}
	t.Run("an undated stage and a rest day are not checked", func(t *testing.T) {
		t.Parallel()
		s := riding(0, parisPt, parisPt, 300, 0)
		_, ok, err := sunsetArrival(s, DefaultSettings(), pacing.NewModel(DefaultSettings()), nil)
		require.NoError(t, err)
		require.False(t, ok)
		s.Date, s.RestDay, s.DistanceM = solstice2024, true, 0
		_, ok, err = sunsetArrival(s, DefaultSettings(), pacing.NewModel(DefaultSettings()), zones(t))
		require.NoError(t, err)
		require.False(t, ok)
	})
}

func TestCheckSunset(t *testing.T) {
	t.Parallel()
	t.Run("twilight is read in the local zone of the end point", func(t *testing.T) {
		t.Parallel()
		s := riding(0, parisPt, parisPt, 100, 0)
		s.Date = solstice2024
		c, err := CheckSunset(s, DefaultSettings(), zones(t))
		require.NoError(t, err)
		require.Equal(t, "Europe/Paris", c.Zone)
		require.InDelta(t, 22+40.0/60, c.TwilightEndHour, 2.0/60)
	})
	t.Run("on the day clocks go forward twilight is a wall-clock hour", func(t *testing.T) {
		t.Parallel()
		s := riding(0, parisPt, parisPt, 100, 0)
		s.Date = time.Date(2024, time.March, 31, 0, 0, 0, 0, time.UTC)
		c, err := CheckSunset(s, DefaultSettings(), zones(t))
		require.NoError(t, err)
		local := c.Civil.Set.In(time.FixedZone("CEST", 2*3600))
		require.InDelta(t, float64(local.Hour())+float64(local.Minute())/60+float64(local.Second())/3600, c.TwilightEndHour, 1e-9)
		require.Greater(t, c.TwilightEndHour, 20.5, "CEST, not CET elapsed hours")
	})
	t.Run("a civil dusk after midnight reads past 24", func(t *testing.T) {
		t.Parallel()
		oslo := route.Point{Lat: 59.9139, Lon: 10.7522}
		s := riding(0, oslo, oslo, 100, 0)
		s.Date = solstice2024
		c, err := CheckSunset(s, DefaultSettings(), zones(t))
		require.NoError(t, err)
		require.Equal(t, Crosses, c.Civil.Kind)
		require.Greater(t, c.TwilightEndHour, 24.0)
		require.Less(t, c.TwilightEndHour, 25.0)
	})
	t.Run("a stage without a date is refused by name", func(t *testing.T) {
		t.Parallel()
		_, err := CheckSunset(riding(5, parisPt, parisPt, 100, 0), DefaultSettings(), zones(t))
		require.ErrorIs(t, err, ErrInvalidInput)
		require.ErrorContains(t, err, "stage 5 has no date")
	})
}
