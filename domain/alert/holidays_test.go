package alert

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// holidayDates returns the dates of a calendar as strings.
func holidayDates(t *testing.T, country string, year int) []string {
	t.Helper()
	hs, err := Holidays(country, year)
	require.NoError(t, err)
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Date.Format(time.DateOnly)
	}
	return out
}

func TestHolidaysKnownCalendars(t *testing.T) {
	t.Parallel()
	// Official calendars (regjeringen.no, riksdagen.se, service-public.fr,
	// BMI, gov.uk, opm.gov …), on the days the library keeps them.
	cases := []struct {
		country string
		year    int
		want    []string
	}{
		// 17 May, Constitution Day, and Ascension on 14 May.
		{"NO", 2026, []string{"2026-01-01", "2026-04-02", "2026-04-03", "2026-04-06", "2026-05-01", "2026-05-14", "2026-05-17", "2026-05-25", "2026-12-25", "2026-12-26"}},
		{"FR", 2026, []string{"2026-01-01", "2026-04-06", "2026-05-01", "2026-05-08", "2026-05-14", "2026-05-25", "2026-07-14", "2026-08-15", "2026-11-01", "2026-11-11", "2026-12-25"}},
		{"DE", 2025, []string{"2025-01-01", "2025-04-18", "2025-04-21", "2025-05-01", "2025-05-29", "2025-06-09", "2025-10-03", "2025-12-25", "2025-12-26"}},
		{"AT", 2026, []string{"2026-01-01", "2026-01-06", "2026-04-06", "2026-05-01", "2026-05-14", "2026-05-25", "2026-06-04", "2026-08-15", "2026-10-26", "2026-11-01", "2026-12-08", "2026-12-25", "2026-12-26"}},
		// gov.uk: 2026 Boxing Day (Saturday) is kept on Monday 28 December.
		{"GB", 2026, []string{"2026-01-01", "2026-04-03", "2026-04-06", "2026-05-04", "2026-05-25", "2026-08-31", "2026-12-25", "2026-12-28"}},
		// 2026: Independence Day on Saturday is observed Friday 3 July.
		{"US", 2026, []string{"2026-01-01", "2026-01-19", "2026-02-16", "2026-05-25", "2026-06-19", "2026-07-03", "2026-09-07", "2026-10-12", "2026-11-11", "2026-11-26", "2026-12-25"}},
	}
	for _, c := range cases {
		t.Run(c.country+" "+time.Date(c.year, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006")+" matches the official calendar", func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, holidayDates(t, c.country, c.year))
		})
	}
}

func TestHolidaysCoverEurope(t *testing.T) {
	t.Parallel()
	t.Run("the countries of a European tour have a calendar", func(t *testing.T) {
		t.Parallel()
		for _, c := range []string{"NO", "SE", "DK", "DE", "NL", "BE", "FR", "ES", "IT", "CH", "AT", "GB", "IE", "PL", "CZ", "SK", "SI", "HR"} {
			require.Contains(t, SupportedCountries(), c)
		}
	})
}

func TestHolidaysEveryCountryHasSortedDistinctDates(t *testing.T) {
	t.Parallel()
	for _, c := range SupportedCountries() {
		t.Run(c+" has sorted, distinct dates inside the year", func(t *testing.T) {
			t.Parallel()
			for y := 2000; y <= 2050; y++ {
				hs, err := Holidays(c, y)
				require.NoError(t, err)
				require.NotEmpty(t, hs)
				for i, h := range hs {
					require.Equal(t, y, h.Date.Year())
					if i > 0 {
						require.True(t, hs[i-1].Date.Before(h.Date), "%s %d: %v then %v", c, y, hs[i-1], h)
					}
				}
			}
		})
	}
}

func TestHolidaysCoincidingFeastsShareOneDate(t *testing.T) {
	t.Parallel()
	h, ok, err := PublicHoliday("FR", date(2008, time.May, 1))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "Fête du Travail / Ascension", h.Name)
}
