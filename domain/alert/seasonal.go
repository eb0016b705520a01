package alert

import (
	"fmt"
	"strings"
	"time"
)

// CodeAccommodationSeasonalClosure: the place chosen for the night, or the
// places offered near a day's end, may be closed in the month of that day
// (their opening_hours month ranges, or seasonal=yes in November–March).
const CodeAccommodationSeasonalClosure Code = "accommodation_seasonal_closure"

// Lodging is an accommodation as the seasonal-closure rule sees it.
type Lodging struct {
	Name string
	// ClosedMonths has bit m−1 set for each month m it may be closed
	// (ClosedMonths).
	ClosedMonths uint16
}

// ClosedMonths is the set of months (bit m−1 for month m) a place may be
// closed in, by PossiblyClosed: computed once from the place's tags when it
// is found, so the rule can read any date's month later.
func ClosedMonths(tags map[string]string) uint16 {
	var bits uint16
	for m := time.January; m <= time.December; m++ {
		if PossiblyClosed(tags, m) {
			bits |= 1 << (m - 1)
		}
	}
	return bits
}

// SeasonalClosure raises accommodation_seasonal_closure for a dated stage:
// a warning when the chosen place may be closed in the stage's month, or
// when nothing is chosen and every candidate may be; a nudge when nothing
// is chosen and some candidates may be (naming up to three). An undated
// stage, or one without candidates, raises nothing.
func SeasonalClosure(index int, day time.Time, chosen *Lodging, candidates []Lodging) (Alert, bool) {
	if day.IsZero() {
		return Alert{}, false
	}
	m := day.Month()
	closedIn := func(l Lodging) bool { return l.ClosedMonths&(1<<(m-1)) != 0 }
	month := m.String()
	if chosen != nil {
		if !closedIn(*chosen) {
			return Alert{}, false
		}
		return Alert{Code: CodeAccommodationSeasonalClosure, Severity: SeverityWarning, StageIndex: index, Value: 1,
			Message: fmt.Sprintf("The place chosen for the night after stage %d, %q, may be closed in %s (seasonal): check before you go.",
				index+1, poiLabel(chosen.Name), month)}, true
	}
	var closed []string
	for _, c := range candidates {
		if closedIn(c) {
			closed = append(closed, fmt.Sprintf("%q", poiLabel(c.Name)))
		}
	}
	switch {
	case len(closed) == 0:
		return Alert{}, false
	case len(closed) == len(candidates):
		return Alert{Code: CodeAccommodationSeasonalClosure, Severity: SeverityWarning, StageIndex: index, Value: float64(len(closed)),
			Message: fmt.Sprintf("Every place offered near the end of stage %d may be closed in %s (seasonal): search further or pick another end.",
				index+1, month)}, true
	}
	named := closed[:min(3, len(closed))]
	more := ""
	if n := len(closed) - len(named); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return Alert{Code: CodeAccommodationSeasonalClosure, Severity: SeverityNudge, StageIndex: index, Value: float64(len(closed)),
		Message: fmt.Sprintf("%d of %d places offered near the end of stage %d may be closed in %s (seasonal): %s%s.",
			len(closed), len(candidates), index+1, month, strings.Join(named, ", "), more)}, true
}

// poiLabel is a third-party name fit for a message: one line, at most 80
// characters.
func poiLabel(name string) string {
	name = strings.Join(strings.Fields(name), " ")
	if r := []rune(name); len(r) > 80 {
		name = string(r[:79]) + "…"
	}
	if name == "" {
		return "unnamed"
	}
	return name
}
