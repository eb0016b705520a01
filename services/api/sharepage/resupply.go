package sharepage

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/roadbook/roadbook/domain/trip"
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
	lo, hi := math.Round(w.TempMinC), math.Round(w.TempMaxC)
	temps := fmt.Sprintf("%.0f–%.0f", lo, hi)
	if lo < 0 || hi < 0 {
		temps = fmt.Sprintf("%.0f to %.0f", lo, hi)
	}
	return fmt.Sprintf("%s: %s °C, %.1f mm (%.0f %%), %s, comfort %.0f/100",
		what, temps, w.PrecipitationMM, w.PrecipProbabilityPct, wind, w.Comfort)
}

// pageResupplyOf lists a day's resupply points by kind in route order.
func pageResupplyOf(st trip.Stage) []pageResupply {
	if st.Resupply == nil || st.RestDay {
		return nil
	}
	var out []pageResupply
	for _, k := range []struct {
		kind  trip.ResupplyKind
		label string
	}{
		{trip.ResupplyWater, "Water"}, {trip.ResupplyShop, "Food shops"}, {trip.ResupplyFood, "Cafés"},
	} {
		var items []string
		n := 0
		for _, p := range st.Resupply.Points {
			if p.Kind != k.kind {
				continue
			}
			n++
			if len(items) == pageResupplyPerKind {
				continue
			}
			item := "km " + strconv.FormatFloat(p.AtM/1000, 'f', 1, 64)
			if p.Name != "" {
				item += " " + p.Name
			}
			switch p.Open {
			case trip.OpenAtPassage:
				item += " (open when you pass)"
			case trip.ClosedAtPassage:
				item += " (closed when you pass)"
			}
			items = append(items, item)
		}
		for _, o := range st.Resupply.Omitted {
			if o.Kind == k.kind {
				n += o.Count
			}
		}
		if len(items) == 0 {
			continue
		}
		line := strings.Join(items, " · ")
		if more := n - len(items); more > 0 {
			line += fmt.Sprintf(" and %d more", more)
		}
		out = append(out, pageResupply{Label: k.label, Items: line})
	}
	if len(out) == 0 {
		out = append(out, pageResupply{Label: "Water and food", Items: "none found within 500 m of the route"})
	}
	return out
}
