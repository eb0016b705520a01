package alert

import (
	"fmt"
	"slices"
	"time"
)

// calendarDay nudges when a dated stage falls on a Sunday or on a public
// holiday of its country (shops and bakeries closed: plan food the day
// before). The country is s.Country when set, else derived from the time
// zone of the end point (CountryForZone); a zone outside the supported
// countries only gets the Sunday check.
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
	country := s.Country
	if country == "" {
		_, zone, err := zoneLocation(zones, s.End.Lat, s.End.Lon)
		if err != nil {
			return nil, err
		}
		country = CountryForZone(zone)
	} else if !slices.Contains(SupportedCountries(), country) {
		return nil, fmt.Errorf("%w: %w: stage %d country %q", ErrInvalidInput, ErrUnsupportedCountry, s.Index, country)
	}
	if country == "" {
		return out, nil
	}
	h, ok, err := PublicHoliday(country, day)
	if err != nil {
		return nil, err
	}
	if ok {
		out = append(out, Alert{
			Code:       CodeCalendarPublicHoliday,
			Severity:   SeverityNudge,
			StageIndex: s.Index,
			Message:    fmt.Sprintf("Stage %d is on %s, a public holiday in %s (%s): many shops are closed.", s.Index+1, day.Format(time.DateOnly), country, h.Name),
			HasPoint:   true,
			Lat:        s.End.Lat,
			Lon:        s.End.Lon,
		})
	}
	return out, nil
}
