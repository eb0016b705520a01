package alert

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// ErrUnsupportedCountry is returned (wrapped) for a country without a holiday
// calendar here.
var ErrUnsupportedCountry = errors.New("alert: no public holiday calendar for country")

// Holiday is one public holiday: a civil date (midnight UTC, only the date is
// meaningful) and its English name.
type Holiday struct {
	Date time.Time
	Name string
}

// SupportedCountries lists the ISO codes Holidays knows, in order.
func SupportedCountries() []string {
	return []string{"AT", "BE", "CH", "DE", "ES", "FR", "GB", "IT", "NL", "US"}
}

// Holidays returns the national public holidays of country (ISO 3166-1
// alpha-2, upper case) falling in year, sorted by date, one entry per date
// (coinciding feasts share it, names joined by " / "). Movable feasts are
// computed from Easter (anonymous Gregorian algorithm). The choice per
// country — national days only, because a stage's region is not known:
//   - FR: the 11 jours fériés of the Code du travail (Whit Monday included;
//     Alsace-Moselle's extra days are regional).
//   - DE: the 9 nationwide days (Good Friday, Easter Monday, Ascension, Whit
//     Monday, Unity Day …); state days such as Corpus Christi are regional.
//   - ES: the national days common to all communities (Good Friday included,
//     Maundy Thursday and Easter Monday are regional).
//   - IT: the 12 national days, Easter Sunday and Easter Monday included.
//   - BE: the 10 legal holidays.
//   - NL: the legal holidays (Easter and Whit Sunday and Monday, King's Day,
//     moved to the 26th when the 27th is a Sunday, Liberation Day every year);
//     Good Friday is left out, it is not a day off for most.
//   - CH: 1 August (the only federal holiday) plus the days every canton
//     observes: New Year, Ascension, Christmas. Good Friday, Easter and Whit
//     Monday, and St Stephen's Day are cantonal and left out.
//   - AT: the 13 statutory days (Corpus Christi included).
//   - GB: England & Wales bank holidays, with substitute days when a fixed
//     holiday falls on a weekend, and the one-off changes of 2020, 2022 and
//     2023.
//   - US: federal holidays on their observed dates (a Saturday holiday is
//     observed on Friday, a Sunday one on Monday; so New Year of the next
//     year can be observed on 31 December); Juneteenth from 2021.
func Holidays(country string, year int) ([]Holiday, error) {
	build, ok := calendars[country]
	if !ok {
		return nil, fmt.Errorf("%w: %q (supported: %v)", ErrUnsupportedCountry, country, SupportedCountries())
	}
	hs := build(year)
	slices.SortStableFunc(hs, func(a, b Holiday) int { return a.Date.Compare(b.Date) })
	// Feasts can coincide (Ascension on 1 May in 2008, Easter Monday on
	// Liberation Day in 2011): one day, both names.
	out := hs[:0]
	for _, h := range hs {
		if n := len(out); n > 0 && out[n-1].Date.Equal(h.Date) {
			out[n-1].Name += " / " + h.Name
			continue
		}
		out = append(out, h)
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

// Easter returns Easter Sunday of a Gregorian year by the anonymous
// Gregorian algorithm (Meeus/Jones/Butcher).
func Easter(year int) time.Time {
	a := year % 19
	b, c := year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return date(year, time.Month(month), day)
}

// date is a civil date as midnight UTC.
func date(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// nthWeekday is the n-th (1-based) weekday of a month; n = -1 is the last.
func nthWeekday(y int, m time.Month, wd time.Weekday, n int) time.Time {
	if n < 0 {
		last := date(y, m+1, 0)
		return last.AddDate(0, 0, -((int(last.Weekday()) - int(wd) + 7) % 7))
	}
	first := date(y, m, 1)
	return first.AddDate(0, 0, (int(wd)-int(first.Weekday())+7)%7+7*(n-1))
}

// fixed and easterOffset shorten calendar tables.
type dayRule struct {
	name string
	on   func(y int) time.Time
}

func fixed(name string, m time.Month, d int) dayRule {
	return dayRule{name, func(y int) time.Time { return date(y, m, d) }}
}

func easterOffset(name string, days int) dayRule {
	return dayRule{name, func(y int) time.Time { return Easter(y).AddDate(0, 0, days) }}
}

func rules(rs ...dayRule) func(int) []Holiday {
	return func(y int) []Holiday {
		out := make([]Holiday, 0, len(rs))
		for _, r := range rs {
			out = append(out, Holiday{Date: r.on(y), Name: r.name})
		}
		return out
	}
}

var (
	newYear      = fixed("New Year's Day", time.January, 1)
	epiphany     = fixed("Epiphany", time.January, 6)
	labourDay    = fixed("Labour Day", time.May, 1)
	assumption   = fixed("Assumption Day", time.August, 15)
	allSaints    = fixed("All Saints' Day", time.November, 1)
	immaculate   = fixed("Immaculate Conception", time.December, 8)
	christmas    = fixed("Christmas Day", time.December, 25)
	stStephen    = fixed("St Stephen's Day", time.December, 26)
	goodFriday   = easterOffset("Good Friday", -2)
	easterSunday = easterOffset("Easter Sunday", 0)
	easterMonday = easterOffset("Easter Monday", 1)
	ascension    = easterOffset("Ascension Day", 39)
	whitSunday   = easterOffset("Whit Sunday", 49)
	whitMonday   = easterOffset("Whit Monday", 50)
	corpusChrist = easterOffset("Corpus Christi", 60)
)

// calendars builds each supported country's holidays for a year.
var calendars = map[string]func(int) []Holiday{
	"FR": rules(newYear, easterMonday, labourDay, fixed("Victory in Europe Day", time.May, 8), ascension,
		whitMonday, fixed("Bastille Day", time.July, 14), assumption, allSaints,
		fixed("Armistice Day", time.November, 11), christmas),
	"DE": rules(newYear, goodFriday, easterMonday, labourDay, ascension, whitMonday,
		fixed("German Unity Day", time.October, 3), christmas, stStephen),
	"ES": rules(newYear, epiphany, goodFriday, labourDay, assumption, fixed("National Day", time.October, 12),
		allSaints, fixed("Constitution Day", time.December, 6), immaculate, christmas),
	"IT": rules(newYear, epiphany, easterSunday, easterMonday, fixed("Liberation Day", time.April, 25), labourDay,
		fixed("Republic Day", time.June, 2), assumption, allSaints, immaculate, christmas, stStephen),
	"BE": rules(newYear, easterMonday, labourDay, ascension, whitMonday, fixed("National Day", time.July, 21),
		assumption, allSaints, fixed("Armistice Day", time.November, 11), christmas),
	"NL": rules(newYear, easterSunday, easterMonday, dayRule{"King's Day", kingsDay},
		fixed("Liberation Day", time.May, 5), ascension, whitSunday, whitMonday, christmas,
		fixed("Second Day of Christmas", time.December, 26)),
	"CH": rules(newYear, ascension, fixed("Swiss National Day", time.August, 1), christmas),
	"AT": rules(newYear, epiphany, easterMonday, fixed("National Holiday (Staatsfeiertag)", time.May, 1), ascension,
		whitMonday, corpusChrist, assumption, fixed("National Day", time.October, 26), allSaints, immaculate,
		christmas, stStephen),
	"GB": englandWales,
	"US": usFederal,
}

// kingsDay is 27 April, or the 26th when the 27th is a Sunday.
func kingsDay(y int) time.Time {
	d := date(y, time.April, 27)
	if d.Weekday() == time.Sunday {
		return d.AddDate(0, 0, -1)
	}
	return d
}

// englandWales is the England & Wales bank holiday calendar.
func englandWales(y int) []Holiday {
	isWeekend := func(t time.Time) bool { return t.Weekday() == time.Saturday || t.Weekday() == time.Sunday }
	earlyMay := nthWeekday(y, time.May, time.Monday, 1)
	spring := nthWeekday(y, time.May, time.Monday, -1)
	var extra []Holiday
	switch y {
	case 2020: // VE Day 75th anniversary
		earlyMay = date(2020, time.May, 8)
	case 2022:
		spring = date(2022, time.June, 2)
		extra = []Holiday{
			{date(2022, time.June, 3), "Platinum Jubilee bank holiday"},
			{date(2022, time.September, 19), "State Funeral of Queen Elizabeth II"},
		}
	case 2023:
		extra = []Holiday{{date(2023, time.May, 8), "Bank holiday for the coronation of King Charles III"}}
	}
	hs := []Holiday{
		{Easter(y).AddDate(0, 0, -2), "Good Friday"},
		{Easter(y).AddDate(0, 0, 1), "Easter Monday"},
		{earlyMay, "Early May bank holiday"},
		{spring, "Spring bank holiday"},
		{nthWeekday(y, time.August, time.Monday, -1), "Summer bank holiday"},
	}
	hs = append(hs, extra...)
	// Fixed days keep their date on a weekday; a weekend one moves to the
	// next weekday not already taken (so Christmas on a Saturday is Monday
	// 27th and Boxing Day Tuesday 28th).
	fixedDays := []Holiday{
		{date(y, time.January, 1), "New Year's Day"},
		{date(y, time.December, 25), "Christmas Day"},
		{date(y, time.December, 26), "Boxing Day"},
	}
	taken := map[time.Time]bool{}
	for _, h := range fixedDays {
		if !isWeekend(h.Date) {
			taken[h.Date] = true
		}
	}
	for _, h := range fixedDays {
		if isWeekend(h.Date) {
			d := h.Date
			for isWeekend(d) || taken[d] {
				d = d.AddDate(0, 0, 1)
			}
			taken[d] = true
			h = Holiday{d, h.Name + " (substitute day)"}
		}
		hs = append(hs, h)
	}
	return hs
}

// usFederal is the US federal holiday calendar on observed dates.
func usFederal(y int) []Holiday {
	observed := func(d time.Time) time.Time {
		switch d.Weekday() {
		case time.Saturday:
			return d.AddDate(0, 0, -1)
		case time.Sunday:
			return d.AddDate(0, 0, 1)
		}
		return d
	}
	var hs []Holiday
	add := func(d time.Time, name string) {
		if d.Year() == y {
			hs = append(hs, Holiday{d, name})
		}
	}
	add(observed(date(y, time.January, 1)), "New Year's Day")
	add(observed(date(y+1, time.January, 1)), "New Year's Day")
	add(nthWeekday(y, time.January, time.Monday, 3), "Birthday of Martin Luther King, Jr.")
	add(nthWeekday(y, time.February, time.Monday, 3), "Washington's Birthday")
	add(nthWeekday(y, time.May, time.Monday, -1), "Memorial Day")
	if y >= 2021 {
		add(observed(date(y, time.June, 19)), "Juneteenth National Independence Day")
	}
	add(observed(date(y, time.July, 4)), "Independence Day")
	add(nthWeekday(y, time.September, time.Monday, 1), "Labor Day")
	add(nthWeekday(y, time.October, time.Monday, 2), "Columbus Day")
	add(observed(date(y, time.November, 11)), "Veterans Day")
	add(nthWeekday(y, time.November, time.Thursday, 4), "Thanksgiving Day")
	add(observed(date(y, time.December, 25)), "Christmas Day")
	return hs
}
