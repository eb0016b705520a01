package alert

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// OpenAt says whether a place with the OSM opening_hours value hours is open
// on the civil date date (only its year, month and day are read) at minute
// minuteOfDay (0–1439) local time; holiday says date is a public holiday
// where the place is, for PH rules. It answers OpenUnknown for an empty
// value and for anything outside the subset it reads, never a guess.
//
// The subset (the opening_hours specification's common forms, which cover
// most shops and cafés): "24/7"; rules separated by ";" where a later rule
// replaces the earlier ones on the days it selects, and rules joined by ","
// that add to them; month ranges ("May-Sep", "Dec", optionally followed by
// ":"); weekday ranges and lists ("Mo-Fr", "Mo,We,Fr", "Su-Tu") and PH; time
// spans "08:00-12:00", lists of them, spans past midnight ("18:00-02:00",
// "22:00-26:00": the early hours belong to the next day) and open ends
// ("17:00+", read as open until midnight); a weekday selector without times
// (open all day); the modifiers off, closed, open and unknown. A day not
// selected by any rule is closed; a holiday no PH rule mentions follows its
// weekday's rules, as the specification says. Anything else — comments,
// "||" fallbacks, dates, weeks, years, nth weekdays, school holidays,
// sunrise/sunset — is OpenUnknown.
func OpenAt(hours string, date time.Time, minuteOfDay int, holiday bool) OpenState {
	rules, ok := parseOpeningHours(hours)
	if !ok || minuteOfDay < 0 || minuteOfDay >= 24*60 {
		return OpenUnknown
	}
	y, m, d := date.Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	today := evalDay(rules, day, holiday)
	// The previous day's spans past midnight are open this morning; whether
	// yesterday was a holiday is not known here, so its PH rules are not
	// applied to the spill.
	yesterday := evalDay(rules, day.AddDate(0, 0, -1), false)
	if today.unknown || (minuteOfDay < yesterday.spillEnd() && yesterday.unknown) {
		return OpenUnknown
	}
	for _, s := range append(today.spans, yesterday.spill...) {
		if minuteOfDay >= s.from && minuteOfDay < s.to {
			return Open
		}
	}
	return Closed
}

// ohRule is one rule of an opening_hours value.
type ohRule struct {
	// additional: joined to the previous rule with ",", so it adds to what
	// it selects instead of replacing it.
	additional bool
	months     []monthSpan
	days       [7]bool
	hasDays    bool
	ph         bool
	times      []span
	// mod is "", "open", "off" (closed too) or "unknown".
	mod string
	all bool // 24/7
}

type monthSpan struct{ from, to time.Month }

// span is [from, to) in minutes of a day; to may pass 1440 (past midnight).
type span struct{ from, to int }

var (
	weekdayNames = []string{"Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"} // time.Weekday order
	ohWeekdayRe  = regexp.MustCompile(`^(Mo|Tu|We|Th|Fr|Sa|Su)(?:-(Mo|Tu|We|Th|Fr|Sa|Su))?$`)
	ohMonthRe    = regexp.MustCompile(`^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(?:-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec))?$`)
	ohTimeRe     = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?:-(\d{1,2}):(\d{2})|(\+))$`)
)

// parseOpeningHours reads the subset OpenAt documents; false for anything
// else.
func parseOpeningHours(v string) ([]ohRule, bool) {
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v, `"|[]`) {
		return nil, false
	}
	var rules []ohRule
	for _, part := range strings.Split(v, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		cur := ohRule{}
		started := false
		for _, word := range strings.Fields(strings.ReplaceAll(part, ",", " , ")) {
			if word == "," {
				continue
			}
			word = strings.TrimSuffix(word, ":")
			switch {
			case word == "24/7":
				cur.all, started = true, true
			case ohMonthRe.MatchString(word):
				if cur.hasDays || len(cur.times) > 0 || cur.mod != "" {
					return nil, false
				}
				mm := ohMonthRe.FindStringSubmatch(word)
				from := monthIndex(mm[1])
				to := from
				if mm[2] != "" {
					to = monthIndex(mm[2])
				}
				cur.months = append(cur.months, monthSpan{from, to})
				started = true
			case ohWeekdayRe.MatchString(word) || word == "PH":
				if len(cur.times) > 0 || cur.mod != "" || cur.all {
					// "Mo-Fr 08:00-12:00, Sa 09:00-12:00": an additional rule.
					rules = append(rules, cur)
					cur = ohRule{additional: true}
				}
				cur.hasDays, started = true, true
				if word == "PH" {
					cur.ph = true
					continue
				}
				wm := ohWeekdayRe.FindStringSubmatch(word)
				from := slices.Index(weekdayNames, wm[1])
				to := from
				if wm[2] != "" {
					to = slices.Index(weekdayNames, wm[2])
				}
				for d := from; ; d = (d + 1) % 7 {
					cur.days[d] = true
					if d == to {
						break
					}
				}
			case ohTimeRe.MatchString(word):
				s, ok := parseSpan(word)
				if !ok || cur.mod != "" {
					return nil, false
				}
				cur.times = append(cur.times, s)
				started = true
			case word == "off" || word == "closed":
				cur.mod, started = "off", true
			case word == "open" || word == "unknown":
				cur.mod, started = word, true
			default:
				return nil, false
			}
		}
		if started {
			rules = append(rules, cur)
		}
	}
	return rules, len(rules) > 0
}

// parseSpan reads "08:00-12:00", "18:00-02:00", "22:00-26:00" or "17:00+".
func parseSpan(word string) (span, bool) {
	m := ohTimeRe.FindStringSubmatch(word)
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	from := num(m[1])*60 + num(m[2])
	if num(m[1]) > 24 || num(m[2]) > 59 || from >= 24*60 {
		return span{}, false
	}
	if m[5] == "+" {
		return span{from, 24 * 60}, true
	}
	to := num(m[3])*60 + num(m[4])
	if num(m[4]) > 59 || to > 48*60 {
		return span{}, false
	}
	if to <= from {
		to += 24 * 60 // past midnight
	}
	return span{from, to}, true
}

// ohDay is what the rules say about one day: its open spans within the day,
// the spans past midnight (as minutes of the next day) and whether a rule
// says unknown.
type ohDay struct {
	spans, spill []span
	unknown      bool
}

func (d ohDay) spillEnd() int {
	end := 0
	for _, s := range d.spill {
		end = max(end, s.to)
	}
	return end
}

// evalDay applies the rules in order to one day.
func evalDay(rules []ohRule, day time.Time, holiday bool) ohDay {
	var out ohDay
	for _, r := range rules {
		if !r.selects(day, holiday) {
			continue
		}
		if !r.additional {
			out = ohDay{}
		}
		times := r.times
		if len(times) == 0 || r.all {
			times = []span{{0, 24 * 60}}
		}
		switch r.mod {
		case "off":
			if len(r.times) == 0 {
				out.spans, out.spill = nil, nil
				continue
			}
			for _, t := range times {
				out.spans = subtract(out.spans, span{t.from, min(t.to, 24*60)})
				if t.to > 24*60 {
					out.spill = subtract(out.spill, span{0, t.to - 24*60})
				}
			}
		case "unknown":
			out.unknown = true
		default:
			for _, t := range times {
				out.spans = append(out.spans, span{t.from, min(t.to, 24*60)})
				if t.to > 24*60 {
					out.spill = append(out.spill, span{0, t.to - 24*60})
				}
			}
		}
	}
	return out
}

// selects reports whether the rule applies to day.
func (r ohRule) selects(day time.Time, holiday bool) bool {
	if r.all && !r.hasDays && len(r.months) == 0 {
		return true
	}
	if len(r.months) > 0 && !slices.ContainsFunc(r.months, func(m monthSpan) bool { return monthInRange(day.Month(), m.from, m.to) }) {
		return false
	}
	if !r.hasDays {
		return true
	}
	return r.days[day.Weekday()] || (r.ph && holiday)
}

// subtract removes cut from every span.
func subtract(spans []span, cut span) []span {
	var out []span
	for _, s := range spans {
		if cut.to <= s.from || cut.from >= s.to {
			out = append(out, s)
			continue
		}
		if s.from < cut.from {
			out = append(out, span{s.from, cut.from})
		}
		if cut.to < s.to {
			out = append(out, span{cut.to, s.to})
		}
	}
	return out
}
