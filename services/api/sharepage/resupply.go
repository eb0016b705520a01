package sharepage

import (
	"fmt"
	"math"

	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
)

// pageResupplyPerKind bounds the points the share page lists per kind and
// day (the rest are counted), keeping a 30-day page within its weight.
const pageResupplyPerKind = 8

// pageResupply is one kind of resupply on a day: "Water", then "km 12.3
// Fontene · km 40.1 · …".
type pageResupply struct{ Label, Items string }

// pageWeather is the day's weather line, or why there is none: "no dates"
// when the trip has none, nothing for a dated day whose weather is not in.
func pageWeather(st trip.Stage, dated bool) string {
	w := st.Weather
	if w == nil {
		if !dated {
			return "Weather: no dates set, so no forecast"
		}
		return ""
	}
	what := "Forecast"
	if w.Typical {
		what = fmt.Sprintf("Typical for the date (%d past years, not a forecast)", w.TypicalYears)
	}
	wind := fmt.Sprintf("wind %.0f km/h", w.WindMaxKmh)
	switch h := math.Round(w.HeadwindKmh); {
	case h >= 1:
		wind += fmt.Sprintf(", headwind %.0f km/h", h)
	case h <= -1:
		wind += fmt.Sprintf(", tailwind %.0f km/h", -h)
	}
	return fmt.Sprintf("%s: %s °C, %.1f mm (%.0f %%), %s, comfort %.0f/100",
		what, export.TempRange(w.TempMinC, w.TempMaxC), w.PrecipitationMM, w.PrecipProbabilityPct, wind, w.Comfort)
}

// pageResupplyOf lists a day's resupply points by kind in route order, as
// the text roadbook does (export.ResupplyLines), with the points the
// analysis counted but did not keep.
func pageResupplyOf(st trip.Stage, set trip.Settings) []pageResupply {
	if st.Resupply == nil || st.RestDay {
		return nil
	}
	omitted := map[export.ResupplyKind]int{}
	for _, o := range st.Resupply.Omitted {
		omitted[export.ResupplyKind(o.Kind)] += o.Count
	}
	var out []pageResupply
	for _, l := range export.ResupplyLines(planner.DayResupply(st, set), omitted, pageResupplyPerKind) {
		out = append(out, pageResupply{Label: l.Label, Items: l.Text()})
	}
	if len(out) == 0 {
		out = append(out, pageResupply{Label: "Water and food", Items: "none found within 500 m of the route"})
	}
	return out
}
