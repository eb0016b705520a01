package alert

import (
	"testing"
	"time"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestCalendarDay(t *testing.T) {
	t.Parallel()
	berlin := route.Point{Lat: 52.52, Lon: 13.4}
	trondheim := route.Point{Lat: 63.43, Lon: 10.39}
	cases := []struct {
		name    string
		end     route.Point
		country string
		day     time.Time
		want    []Code
	}{
		{"an ordinary Tuesday in France", parisPt, "", date(2025, time.March, 11), nil},
		{"a Sunday anywhere", trondheim, "", date(2025, time.March, 9), []Code{CodeCalendarSunday}},
		{"Bastille Day found from the zone of the end point", parisPt, "", date(2025, time.July, 14), []Code{CodeCalendarPublicHoliday}},
		{"German Unity Day in Berlin", berlin, "", date(2025, time.October, 3), []Code{CodeCalendarPublicHoliday}},
		{"Easter Sunday in Italy is both", route.Point{Lat: 41.9, Lon: 12.5}, "", date(2025, time.April, 20), []Code{CodeCalendarSunday, CodeCalendarPublicHoliday}},
		{"Norway has no calendar here, so 17 May only checks Sunday", trondheim, "", date(2025, time.May, 17), nil},
		{"an explicit country overrides the zone", parisPt, "DE", date(2025, time.October, 3), []Code{CodeCalendarPublicHoliday}},
		{"an explicit country also removes the zone's holiday", parisPt, "DE", date(2025, time.July, 14), nil},
		{"an undated stage is not checked", parisPt, "", time.Time{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := riding(1, north(c.end, -10000), c.end, 10, 0)
			s.Date, s.Country = c.day, c.country
			as, err := calendarDay(s, zones(t))
			require.NoError(t, err)
			require.Equal(t, c.want, codes(as))
			for _, a := range as {
				require.Equal(t, SeverityNudge, a.Severity)
				require.Equal(t, 1, a.StageIndex)
			}
		})
	}
	t.Run("an explicit unsupported country is refused by name", func(t *testing.T) {
		t.Parallel()
		s := riding(1, parisPt, parisPt, 10, 0)
		s.Date, s.Country = date(2025, time.May, 17), "NO"
		_, err := calendarDay(s, zones(t))
		require.ErrorIs(t, err, ErrInvalidInput)
		require.ErrorIs(t, err, ErrUnsupportedCountry)
		require.ErrorContains(t, err, `"NO"`)
	})
}
