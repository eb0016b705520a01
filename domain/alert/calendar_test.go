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
		{"Easter Monday in Italy", route.Point{Lat: 41.9, Lon: 12.5}, "", date(2025, time.April, 21), []Code{CodeCalendarPublicHoliday}},
		{"Christmas Day 2022 in Italy, a Sunday, is both", route.Point{Lat: 41.9, Lon: 12.5}, "", date(2022, time.December, 25), []Code{CodeCalendarSunday, CodeCalendarPublicHoliday}},
		{"17 May is Constitution Day in Norway", trondheim, "", date(2026, time.May, 17), []Code{CodeCalendarSunday, CodeCalendarPublicHoliday}},
		{"the day after is an ordinary Monday", trondheim, "", date(2026, time.May, 18), nil},
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
		s.Date, s.Country = date(2025, time.May, 17), "IS"
		_, err := calendarDay(s, zones(t))
		require.ErrorIs(t, err, ErrInvalidInput)
		require.ErrorIs(t, err, ErrUnsupportedCountry)
		require.ErrorContains(t, err, `"IS"`)
	})

	// A day from Strömstad (Sweden) over the Svinesund bridge to Halden
	// (Norway): every country it passes through counts.
	stromstad, svinesund, halden := route.Point{Lat: 58.9395, Lon: 11.1712}, route.Point{Lat: 59.0965, Lon: 11.2761}, route.Point{Lat: 59.1243, Lon: 11.3875}
	crossing := func(day time.Time) Stage {
		s := riding(0, stromstad, halden, 25, 0)
		s.Points, s.Date = []route.Point{stromstad, svinesund, halden}, day
		return s
	}
	t.Run("a day crossing into Norway on 17 May has Norway's holiday, located in Norway", func(t *testing.T) {
		t.Parallel()
		as, err := calendarDay(crossing(date(2027, time.May, 17)), zones(t))
		require.NoError(t, err)
		require.Equal(t, []Code{CodeCalendarPublicHoliday}, codes(as))
		require.Contains(t, as[0].Message, "a public holiday in Norway (Grunnlovsdag")
		require.Greater(t, as[0].Lat, 59.09, "where the route enters Norway")
	})
	t.Run("the same day on Sweden's national day has Sweden's", func(t *testing.T) {
		t.Parallel()
		as, err := calendarDay(crossing(date(2027, time.June, 6)), zones(t))
		require.NoError(t, err)
		require.Equal(t, []Code{CodeCalendarSunday, CodeCalendarPublicHoliday}, codes(as))
		require.Contains(t, as[1].Message, "a public holiday in Sweden")
	})
	t.Run("on an ordinary day neither country nudges", func(t *testing.T) {
		t.Parallel()
		as, err := calendarDay(crossing(date(2027, time.May, 18)), zones(t))
		require.NoError(t, err)
		require.Empty(t, as)
	})
}
