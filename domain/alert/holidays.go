package alert

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rickar/cal/v2"
	"github.com/rickar/cal/v2/ar"
	"github.com/rickar/cal/v2/at"
	"github.com/rickar/cal/v2/be"
	"github.com/rickar/cal/v2/bg"
	"github.com/rickar/cal/v2/br"
	"github.com/rickar/cal/v2/ca"
	"github.com/rickar/cal/v2/ch"
	"github.com/rickar/cal/v2/cz"
	"github.com/rickar/cal/v2/de"
	"github.com/rickar/cal/v2/dk"
	"github.com/rickar/cal/v2/es"
	"github.com/rickar/cal/v2/fr"
	"github.com/rickar/cal/v2/gb"
	"github.com/rickar/cal/v2/gr"
	"github.com/rickar/cal/v2/hr"
	"github.com/rickar/cal/v2/ie"
	"github.com/rickar/cal/v2/it"
	"github.com/rickar/cal/v2/jp"
	"github.com/rickar/cal/v2/lt"
	"github.com/rickar/cal/v2/lv"
	"github.com/rickar/cal/v2/mw"
	"github.com/rickar/cal/v2/nc"
	"github.com/rickar/cal/v2/nl"
	"github.com/rickar/cal/v2/no"
	"github.com/rickar/cal/v2/nz"
	"github.com/rickar/cal/v2/pl"
	"github.com/rickar/cal/v2/ro"
	"github.com/rickar/cal/v2/ru"
	"github.com/rickar/cal/v2/se"
	"github.com/rickar/cal/v2/si"
	"github.com/rickar/cal/v2/sk"
	"github.com/rickar/cal/v2/ua"
	"github.com/rickar/cal/v2/us"
	"github.com/rickar/cal/v2/za"
)

// ErrUnsupportedCountry is returned (wrapped) for a country without a holiday
// calendar here.
var ErrUnsupportedCountry = errors.New("alert: no public holiday calendar for country")

// Holiday is one public holiday: a civil date (midnight UTC, only the date is
// meaningful) and its name as the country writes it.
type Holiday struct {
	Date time.Time
	Name string
}

// calendars are the national holiday lists of github.com/rickar/cal/v2, a
// maintained library of official calendars (each country's Holidays: its
// national days; regional ones are left out because a point's region is
// not known), by ISO 3166-1 alpha-2 code. Australia has only regional
// lists there and is not included.
var calendars = map[string][]*cal.Holiday{
	"AR": ar.Holidays, "AT": at.Holidays, "BE": be.Holidays, "BG": bg.Holidays, "BR": br.Holidays,
	"CA": ca.Holidays, "CH": ch.Holidays, "CZ": cz.Holidays, "DE": de.Holidays, "DK": dk.Holidays,
	"ES": es.Holidays, "FR": fr.Holidays, "GB": gb.Holidays, "GR": gr.Holidays, "HR": hr.Holidays,
	"IE": ie.Holidays, "IT": it.Holidays, "JP": jp.Holidays, "LT": lt.Holidays, "LV": lv.Holidays,
	"MW": mw.Holidays, "NC": nc.Holidays, "NL": nl.Holidays, "NO": no.Holidays, "NZ": nz.Holidays,
	"PL": pl.Holidays, "RO": ro.Holidays, "RU": ru.Holidays, "SE": se.Holidays, "SI": si.Holidays,
	"SK": sk.Holidays, "UA": ua.Holidays, "US": us.Holidays, "ZA": za.Holidays,
}

// SupportedCountries lists the ISO codes Holidays knows, sorted.
func SupportedCountries() []string {
	return slices.Sorted(maps.Keys(calendars))
}

// Holidays returns the public holidays of country (ISO 3166-1 alpha-2,
// upper case) falling in year, sorted by date, one entry per date
// (coinciding feasts share it, names joined by " / "; names are the
// library's, in the country's language). A holiday counts on its observed
// date (the substitute Monday of a weekend bank holiday: the day shops and
// offices keep); days the library marks as other observances (school,
// work) are left out. Switzerland's list is the library's: every day some
// canton keeps, so a cantonal day may nudge where it is not kept.
func Holidays(country string, year int) ([]Holiday, error) {
	list, ok := calendars[country]
	if !ok {
		return nil, fmt.Errorf("%w: %q (supported: %v)", ErrUnsupportedCountry, country, SupportedCountries())
	}
	byDate := map[time.Time][]string{}
	for _, h := range list {
		if h.Type == cal.ObservanceOther {
			continue
		}
		_, d := h.Calc(year)
		if d.IsZero() || d.Year() != year {
			continue
		}
		day := date(d.Date())
		if !slices.Contains(byDate[day], h.Name) {
			byDate[day] = append(byDate[day], h.Name)
		}
	}
	out := make([]Holiday, 0, len(byDate))
	for _, d := range slices.SortedFunc(maps.Keys(byDate), time.Time.Compare) {
		out = append(out, Holiday{Date: d, Name: strings.Join(byDate[d], " / ")})
	}
	return out, nil
}

// PublicHoliday reports whether the civil date of day (only year, month and
// day are read) is a public holiday of country, and which.
func PublicHoliday(country string, day time.Time) (Holiday, bool, error) {
	y, m, d := civilDate(day)
	hs, err := Holidays(country, y)
	if err != nil {
		return Holiday{}, false, err
	}
	want := date(y, m, d)
	for _, h := range hs {
		if h.Date.Equal(want) {
			return h, true, nil
		}
	}
	return Holiday{}, false, nil
}

// date is a civil date as midnight UTC.
func date(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
