package alert

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestEaster(t *testing.T) {
	t.Parallel()
	// Published Western Easter dates.
	for year, want := range map[int]string{
		2019: "2019-04-21", 2024: "2024-03-31", 2025: "2025-04-20", 2026: "2026-04-05",
		2027: "2027-03-28", 2038: "2038-04-25", 2285: "2285-03-22",
	} {
		t.Run("Easter "+want, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, Easter(year).Format(time.DateOnly))
		})
	}
}

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
	// Official calendars (service-public.fr, BMI, BOE, gov.uk, opm.gov, ...).
	cases := []struct {
		country string
		year    int
		want    []string
	}{
		{"FR", 2024, []string{"2024-01-01", "2024-04-01", "2024-05-01", "2024-05-08", "2024-05-09", "2024-05-20", "2024-07-14", "2024-08-15", "2024-11-01", "2024-11-11", "2024-12-25"}},
		{"FR", 2026, []string{"2026-01-01", "2026-04-06", "2026-05-01", "2026-05-08", "2026-05-14", "2026-05-25", "2026-07-14", "2026-08-15", "2026-11-01", "2026-11-11", "2026-12-25"}},
		{"DE", 2025, []string{"2025-01-01", "2025-04-18", "2025-04-21", "2025-05-01", "2025-05-29", "2025-06-09", "2025-10-03", "2025-12-25", "2025-12-26"}},
		{"ES", 2024, []string{"2024-01-01", "2024-01-06", "2024-03-29", "2024-05-01", "2024-08-15", "2024-10-12", "2024-11-01", "2024-12-06", "2024-12-08", "2024-12-25"}},
		{"IT", 2025, []string{"2025-01-01", "2025-01-06", "2025-04-20", "2025-04-21", "2025-04-25", "2025-05-01", "2025-06-02", "2025-08-15", "2025-11-01", "2025-12-08", "2025-12-25", "2025-12-26"}},
		{"BE", 2026, []string{"2026-01-01", "2026-04-06", "2026-05-01", "2026-05-14", "2026-05-25", "2026-07-21", "2026-08-15", "2026-11-01", "2026-11-11", "2026-12-25"}},
		// King's Day 2025: the 27th is a Sunday, so Saturday the 26th.
		{"NL", 2025, []string{"2025-01-01", "2025-04-20", "2025-04-21", "2025-04-26", "2025-05-05", "2025-05-29", "2025-06-08", "2025-06-09", "2025-12-25", "2025-12-26"}},
		{"NL", 2024, []string{"2024-01-01", "2024-03-31", "2024-04-01", "2024-04-27", "2024-05-05", "2024-05-09", "2024-05-19", "2024-05-20", "2024-12-25", "2024-12-26"}},
		{"CH", 2024, []string{"2024-01-01", "2024-05-09", "2024-08-01", "2024-12-25"}},
		{"AT", 2026, []string{"2026-01-01", "2026-01-06", "2026-04-06", "2026-05-01", "2026-05-14", "2026-05-25", "2026-06-04", "2026-08-15", "2026-10-26", "2026-11-01", "2026-12-08", "2026-12-25", "2026-12-26"}},
		// gov.uk: 2026 Boxing Day (Saturday) substitute is Monday 28 December.
		{"GB", 2026, []string{"2026-01-01", "2026-04-03", "2026-04-06", "2026-05-04", "2026-05-25", "2026-08-31", "2026-12-25", "2026-12-28"}},
		{"GB", 2025, []string{"2025-01-01", "2025-04-18", "2025-04-21", "2025-05-05", "2025-05-26", "2025-08-25", "2025-12-25", "2025-12-26"}},
		// 2022: New Year on Saturday → Monday 3rd; Christmas on Sunday → Tuesday 27th; the jubilee and the funeral.
		{"GB", 2022, []string{"2022-01-03", "2022-04-15", "2022-04-18", "2022-05-02", "2022-06-02", "2022-06-03", "2022-08-29", "2022-09-19", "2022-12-26", "2022-12-27"}},
		// 2027: Christmas on Saturday → Monday 27th, Boxing Day → Tuesday 28th.
		{"GB", 2027, []string{"2027-01-01", "2027-03-26", "2027-03-29", "2027-05-03", "2027-05-31", "2027-08-30", "2027-12-27", "2027-12-28"}},
		{"US", 2024, []string{"2024-01-01", "2024-01-15", "2024-02-19", "2024-05-27", "2024-06-19", "2024-07-04", "2024-09-02", "2024-10-14", "2024-11-11", "2024-11-28", "2024-12-25"}},
		{"US", 2025, []string{"2025-01-01", "2025-01-20", "2025-02-17", "2025-05-26", "2025-06-19", "2025-07-04", "2025-09-01", "2025-10-13", "2025-11-11", "2025-11-27", "2025-12-25"}},
		// 2026: Independence Day on Saturday is observed Friday 3 July.
		{"US", 2026, []string{"2026-01-01", "2026-01-19", "2026-02-16", "2026-05-25", "2026-06-19", "2026-07-03", "2026-09-07", "2026-10-12", "2026-11-11", "2026-11-26", "2026-12-25"}},
		// 2021: Juneteenth (Saturday) observed Friday 18 June; New Year 2022 (Saturday) observed Friday 31 December 2021;
		// New Year 2021 is a Friday.
		{"US", 2021, []string{"2021-01-01", "2021-01-18", "2021-02-15", "2021-05-31", "2021-06-18", "2021-07-05", "2021-09-06", "2021-10-11", "2021-11-11", "2021-11-25", "2021-12-24", "2021-12-31"}},
	}
	for _, c := range cases {
		t.Run(c.country+" "+time.Date(c.year, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006")+" matches the official calendar", func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, holidayDates(t, c.country, c.year))
		})
	}
}

func TestHolidaysUSNewYearObservedInPreviousYear(t *testing.T) {
	t.Parallel()
	t.Run("2022 has no New Year holiday in January because it was observed on 2021-12-31", func(t *testing.T) {
		t.Parallel()
		require.NotContains(t, holidayDates(t, "US", 2022), "2022-01-01")
		require.Contains(t, holidayDates(t, "US", 2021), "2021-12-31")
	})
}

func TestPublicHoliday(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		country string
		day     time.Time
		want    bool
		wantNm  string
	}{
		{"Bastille Day is a holiday in France", "FR", date(2025, time.July, 14), true, "Bastille Day"},
		{"Whit Monday is a holiday in Germany", "DE", date(2026, time.May, 25), true, "Whit Monday"},
		{"Corpus Christi is not national in Germany", "DE", date(2026, time.June, 4), false, ""},
		{"Corpus Christi is national in Austria", "AT", date(2026, time.June, 4), true, "Corpus Christi"},
		{"Swiss National Day", "CH", date(2026, time.August, 1), true, "Swiss National Day"},
		{"an ordinary Tuesday is no holiday", "IT", date(2025, time.March, 11), false, ""},
		{"the date's own location is ignored (civil date)", "FR", time.Date(2025, time.July, 14, 23, 30, 0, 0, time.FixedZone("X", -10*3600)), true, "Bastille Day"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h, ok, err := PublicHoliday(c.country, c.day)
			require.NoError(t, err)
			require.Equal(t, c.want, ok)
			require.Equal(t, c.wantNm, h.Name)
		})
	}
	t.Run("an unsupported country is a named error", func(t *testing.T) {
		t.Parallel()
		_, _, err := PublicHoliday("NO", date(2025, time.May, 17))
		require.ErrorIs(t, err, ErrUnsupportedCountry)
		require.ErrorContains(t, err, `"NO"`)
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
	require.Equal(t, "Labour Day / Ascension Day", h.Name)
}
