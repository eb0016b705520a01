package alert

import (
	"fmt"
	"slices"
	"time"
)

// calendarDay nudges when a dated stage falls on a Sunday or on a public
// holiday of a country it passes through (shops and bakeries closed: plan
// food the day before). The countries are s.Country when set, else every
// country along the stage's route (countriesAlong: the offline country of
// each point from its time zone), in route order; a country without a
// calendar (SupportedCountries) only gets the Sunday check.
func calendarDay(s Stage, zones ZoneFinder) ([]Alert, error) {
	if s.Date.IsZero() {
		return nil, nil
	}
	y, m, d := civilDate(s.Date)
	day := date(y, m, d)
	var out []Alert
	if day.Weekday() == time.Sunday {
		out = append(out, Alert{
			Code:       CodeCalendarSunday,
			Severity:   SeverityNudge,
			StageIndex: s.Index,
			Message:    fmt.Sprintf("Stage %d is on Sunday %s: many shops are closed.", s.Index+1, day.Format(time.DateOnly)),
		})
	}
	var runs []countryRun
	if s.Country != "" {
		if !slices.Contains(SupportedCountries(), s.Country) {
			return nil, fmt.Errorf("%w: %w: stage %d country %q", ErrInvalidInput, ErrUnsupportedCountry, s.Index, s.Country)
		}
		runs = []countryRun{{country: s.Country, at: s.End}}
	} else {
		var err error
		if runs, err = countriesAlong(s, zones); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if r.country == "" || seen[r.country] || !slices.Contains(SupportedCountries(), r.country) {
			continue
		}
		seen[r.country] = true
		h, ok, err := PublicHoliday(r.country, day)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, Alert{
				Code:       CodeCalendarPublicHoliday,
				Severity:   SeverityNudge,
				StageIndex: s.Index,
				Message: fmt.Sprintf("Stage %d is on %s, a public holiday in %s (%s): many shops are closed.",
					s.Index+1, day.Format(time.DateOnly), countryName(r.country), h.Name),
				HasPoint: true,
				Lat:      r.at.Lat,
				Lon:      r.at.Lon,
			})
		}
	}
	return out, nil
}
