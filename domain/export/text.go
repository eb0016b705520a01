package export

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/roadbook/roadbook/domain/route"
)

// MaxTextResupplyPerKind bounds the resupply points the text roadbook lists
// per kind and day; the rest are counted ("and 4 more").
const MaxTextResupplyPerKind = 8

// dayDetails are the indented lines under a day: where it goes, its
// weather, its highest point, then resupply.
func dayDetails(s Stage, tripDated bool) []string {
	var out []string
	if where := dayWhere(s); where != "" {
		out = append(out, where)
	}
	switch {
	case s.Weather != nil:
		out = append(out, weatherLine(*s.Weather))
	case tripDated && !s.Date.IsZero():
		out = append(out, "Weather: not available")
	}
	if s.RestDay {
		if w := waypointsLine(s); w != "" {
			out = append(out, w)
		}
		return out
	}
	if top := highestPoint(s); top != "" {
		out = append(out, top)
	}
	if w := waypointsLine(s); w != "" {
		out = append(out, w)
	}
	for _, l := range ResupplyLines(s.Resupply, nil, MaxTextResupplyPerKind) {
		out = append(out, l.Label+": "+l.Text())
	}
	if len(s.Resupply) == 0 && s.ResupplyChecked {
		out = append(out, "Resupply: none found within 500 m of the route")
	}
	return out
}

// dayWhere is where a day goes, "Maslianico → Bodio" (a rest day: where
// the rider stays), empty while its places are not named.
func dayWhere(s Stage) string {
	if s.RestDay {
		return cleanText(s.EndLabel)
	}
	return cleanText(s.Label)
}

// highestPoint is "Highest point: 2474 m at km 30.2" for a day that climbs
// to its top (daySummit, the GPX and FIT exports' summit mark), the km on
// the day's own scale (route.MeasuredDistances, as its distance is
// measured); empty for a day without such a climb or without elevation.
func highestPoint(s Stage) string {
	if s.ElevationUnknown {
		return ""
	}
	top, ok := daySummit(s.Points)
	if !ok {
		return ""
	}
	at := route.MeasuredDistances(s.Points)[top]
	return fmt.Sprintf("Highest point: %.0f m at km %s", s.Points[top].Ele, strconv.FormatFloat(at/1000, 'f', 1, 64))
}

// waypointsLine is "Your waypoints: km 12.3 Spring (water) · km 40.1
// Camp", the rider's own points of the day in route order, each at the km
// of the day's point nearest to it (where the GPX and FIT place them, on
// the day's measured scale); a rest day's, which has no route, without km.
// Empty for a day without any. Names and categories are user text, cleaned
// to one line.
func waypointsLine(s Stage) string {
	if len(s.Waypoints) == 0 {
		return ""
	}
	type item struct {
		at   float64
		text string
	}
	var at []float64
	if len(s.Points) > 0 {
		at = route.MeasuredDistances(s.Points)
	}
	items := make([]item, 0, len(s.Waypoints))
	for _, w := range s.Waypoints {
		text := cleanText(w.Name)
		if c := cleanText(w.Category); c != "" {
			text += " (" + c + ")"
		}
		it := item{text: text}
		if at != nil {
			it.at = at[nearestPoint(s.Points, w.Lat, w.Lon)]
			it.text = "km " + strconv.FormatFloat(it.at/1000, 'f', 1, 64) + " " + text
		}
		items = append(items, it)
	}
	slices.SortStableFunc(items, func(a, b item) int { return cmp.Compare(a.at, b.at) })
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.text
	}
	return "Your waypoints: " + strings.Join(texts, " · ")
}

// weatherLine is "Weather (forecast): 9–17 °C, 2.5 mm, wind 25 km/h
// (headwind 18 km/h), comfort 62/100".
func weatherLine(w Weather) string {
	what := "forecast"
	if w.Typical {
		what = "typical for the date"
	}
	wind := fmt.Sprintf("wind %.0f km/h", w.WindKmh)
	switch h := math.Round(w.HeadwindKmh); {
	case h >= 1:
		wind += fmt.Sprintf(" (headwind %.0f km/h)", h)
	case h <= -1:
		wind += fmt.Sprintf(" (tailwind %.0f km/h)", -h)
	}
	return fmt.Sprintf("Weather (%s): %s °C, %s mm, %s, comfort %.0f/100",
		what, TempRange(w.TempMinC, w.TempMaxC), strconv.FormatFloat(w.PrecipitationMM, 'f', 1, 64), wind, w.Comfort)
}

// TempRange is a day's temperatures in whole degrees as the roadbook writes
// them, in the text and on the share page: "8–17" or, below zero, "-4 to 2"
// (a dash between negative numbers reads as a minus).
func TempRange(lo, hi float64) string {
	lo, hi = math.Round(lo), math.Round(hi)
	if lo < 0 || hi < 0 {
		return fmt.Sprintf("%.0f to %.0f", lo, hi)
	}
	return fmt.Sprintf("%.0f–%.0f", lo, hi)
}

// Meal prices of the text roadbook's budget (DOMAIN §10): each meal costs
// between MealMinEUR and MealMaxEUR.
const (
	MealMinEUR = 12.0
	MealMaxEUR = 20.0
)

// WriteText writes the plain-text roadbook (DOMAIN §10). Its exact format,
// one item per line, UTF-8, "\n" line ends:
//
//	<title, or "Untitled trip">
//	Total: <km> km, ↑<D+> m ↓<D−> m
//	Source: <source URL, or "uploaded file">
//	[Weather: the trip has no dates, so there is no forecast]         (no stage dated)
//	<blank line>
//	<date>: <km> km, ↑<D+> m ↓<D−> m, <accommodation>, <min>–<max> €   (riding day)
//	  <start place> → <end place>
//	  Weather (<forecast|typical for the date>): <min>–<max> °C, <mm> mm, wind <v> km/h (<headwind|tailwind> <h> km/h), comfort <c>/100
//	  Highest point: <m> m at km <k>
//	  Your waypoints: km <k> <name> (<category>) · …
//	  Water: km <k> <name> · km <k> <name> …
//	  Food shops: km <k> <name> (<open|closed> when you pass) · …
//	  Cafés and restaurants: km <k> <name> · …
//	<date>: rest day, <accommodation>, <min>–<max> €                   (rest day)
//	  <the place of the rest day>
//	  Your waypoints: <name> (<category>) · …
//	<blank line>
//	Budget: <min>–<max> €
//
// Distances have one decimal (0.1 km), climbs whole metres (halves away from
// zero); the totals are route.Totals over the riding days, the sums every
// other view states. "↑X m ↓Y m" reads "elevation
// unknown" when the route has no elevation (for the total: when any riding day lacks it). <date> is
// the stage date as YYYY-MM-DD, or "Day N" (N = position from 1) when the
// stage has none. <accommodation> is the chosen accommodation's name, "no
// accommodation chosen", or "no accommodation (last day)" on the last stage,
// which never has one. A day's budget is its meals (MealMinEUR–MealMaxEUR
// each: 1 for a single-day trip, 2 on the first and last days, 3 otherwise,
// 3 on rest days) plus the chosen accommodation's price range; euros are
// whole when whole, else two decimals. The final line sums the days.
// Third-party text (title, names) is cleaned to one line each.
//
// The indented lines follow a day when there is something to say: where it
// goes, once its places are named (a rest day: where the rider stays); its
// weather ("Weather: not available" for a dated day without any; nothing per
// day when no day is dated, the header line says it once); its highest
// point, when the day climbs SummitMinRiseM above both its ends to it (the
// summit the GPX and FIT exports mark; km on the day's measured scale, one
// decimal); the rider's own waypoints in route order (a rest day's without
// km); then its resupply points by kind in route order (km along the day, one decimal;
// an unnamed point is its km alone; at most MaxTextResupplyPerKind each,
// then "and N more"), or "Resupply: none found within 500 m of the route"
// when the analysis looked and found none.
func WriteText(w io.Writer, t Trip) error {
	if err := t.validate(); err != nil {
		return err
	}
	if len(t.Stages) == 0 {
		return ErrNoStages
	}
	bw := bufio.NewWriter(w)
	title, source := textTitle(t)

	var total route.Totals
	var budgetMin, budgetMax float64
	eleKnown := true
	for i, s := range t.Stages {
		lo, hi := stageBudget(t.Stages, i)
		budgetMin += lo
		budgetMax += hi
		if !s.RestDay {
			total.Add(s.DistanceM, s.AscentM, s.DescentM)
			eleKnown = eleKnown && !s.ElevationUnknown
		}
	}

	fmt.Fprintf(bw, "%s\nTotal: %s, %s\nSource: %s\n", title, formatKm(total.DistanceM), formatClimb(total.AscentM, total.DescentM, eleKnown), source)
	dated := tripDated(t)
	if !dated {
		fmt.Fprintln(bw, noDatesLine)
	}
	fmt.Fprintln(bw)
	for i := range t.Stages {
		writeDay(bw, t.Stages, i, dated)
	}
	fmt.Fprintf(bw, "\nBudget: %s\n", formatRange(budgetMin, budgetMax))
	return bw.Flush()
}

// WriteStageText writes the text roadbook of the stage at position i (from
// 0, rest days counted): what a rider prints or keeps on the phone for one
// day. Its format, as WriteText's for that day:
//
//	<title, or "Untitled trip"> · Day <i+1> of <stages>
//	Source: <source URL, or "uploaded file">
//	[Weather: the trip has no dates, so there is no forecast]         (no stage dated)
//	<blank line>
//	<the day's line and its indented lines, as in WriteText>
//
// The day's line carries its budget, so there is no Budget line; the
// header names the day's place in the trip, which a dated day's line does
// not. A position outside the trip is ErrNoSuchStage.
func WriteStageText(w io.Writer, t Trip, i int) error {
	if err := t.validate(); err != nil {
		return err
	}
	if len(t.Stages) == 0 {
		return ErrNoStages
	}
	if i < 0 || i >= len(t.Stages) {
		return fmt.Errorf("%w: position %d, the trip has %d stages", ErrNoSuchStage, i, len(t.Stages))
	}
	bw := bufio.NewWriter(w)
	title, source := textTitle(t)
	fmt.Fprintf(bw, "%s · Day %d of %d\nSource: %s\n", title, i+1, len(t.Stages), source)
	dated := tripDated(t)
	if !dated {
		fmt.Fprintln(bw, noDatesLine)
	}
	fmt.Fprintln(bw)
	writeDay(bw, t.Stages, i, dated)
	return bw.Flush()
}

// noDatesLine is said once, in the header, for a trip with no dated day.
const noDatesLine = "Weather: the trip has no dates, so there is no forecast"

// textTitle is the title and the source as the text roadbook writes them.
func textTitle(t Trip) (title, source string) {
	title, source = cleanText(t.Title), cleanText(t.SourceURL)
	if title == "" {
		title = "Untitled trip"
	}
	if source == "" {
		source = "uploaded file"
	}
	return title, source
}

// tripDated reports whether any day has a date: only then is a day without
// weather said to have none.
func tripDated(t Trip) bool {
	return slices.ContainsFunc(t.Stages, func(s Stage) bool { return !s.Date.IsZero() })
}

// writeDay writes the stage at position i: its line, then its indented
// lines.
func writeDay(w io.Writer, stages []Stage, i int, dated bool) {
	s := stages[i]
	what := "rest day"
	if !s.RestDay {
		what = formatKm(s.DistanceM) + ", " + formatClimb(s.AscentM, s.DescentM, !s.ElevationUnknown)
	}
	lo, hi := stageBudget(stages, i)
	fmt.Fprintf(w, "%s: %s, %s, %s\n", dayLabel(s, i), what, stageLodging(stages, i), formatRange(lo, hi))
	for _, d := range dayDetails(s, dated) {
		fmt.Fprintln(w, "  "+d)
	}
}

// mealsOn is the number of meals budgeted for the stage at position i: a
// single-day trip has 1; the first and last days 2 (the rider starts after
// breakfast and arrives before dinner); other days and every rest day 3.
func mealsOn(stages []Stage, i int) int {
	switch {
	case stages[i].RestDay:
		return 3
	case len(stages) == 1:
		return 1
	case i == 0 || i == len(stages)-1:
		return 2
	default:
		return 3
	}
}

// stageBudget is the stage's budget range in euros: its meals plus the
// chosen accommodation's price range, except on the last stage, which has
// no night to pay for.
func stageBudget(stages []Stage, i int) (lo, hi float64) {
	m := float64(mealsOn(stages, i))
	lo, hi = m*MealMinEUR, m*MealMaxEUR
	if a := stages[i].Accommodation; a != nil && i < len(stages)-1 {
		lo += a.PriceMinEUR
		hi += a.PriceMaxEUR
	}
	return lo, hi
}

func stageLodging(stages []Stage, i int) string {
	if i == len(stages)-1 {
		return "no accommodation (last day)"
	}
	a := stages[i].Accommodation
	if a == nil {
		return "no accommodation chosen"
	}
	if name := cleanText(a.Name); name != "" {
		return name
	}
	return "unnamed accommodation"
}

func dayLabel(s Stage, i int) string {
	if s.Date.IsZero() {
		return "Day " + strconv.Itoa(i+1)
	}
	return s.Date.Format("2006-01-02")
}

func formatKm(m float64) string { return strconv.FormatFloat(m/1000, 'f', 1, 64) + " km" }

func formatClimb(ascentM, descentM float64, known bool) string {
	if !known {
		return "elevation unknown"
	}
	return fmt.Sprintf("↑%d m ↓%d m", int64(math.Round(ascentM)), int64(math.Round(descentM)))
}

func formatRange(lo, hi float64) string { return formatEUR(lo) + "–" + formatEUR(hi) + " €" }

// formatEUR writes whole euros without decimals and anything else with two.
func formatEUR(v float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 2, 64), ".00")
}
