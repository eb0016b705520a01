package provider

import (
	"fmt"
	"slices"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
)

// Gap rules of DOMAIN §5 (OSM family).
const (
	// MaxGapKm: a stretch longer than this without resupply (or water) is
	// flagged.
	MaxGapKm = 30.0
	// POIRadiusM: a POI counts for the route when it is this close to it.
	POIRadiusM = 500.0
	// sampleSpacingM: the route is sampled this often for the Overpass
	// "around" line and the POI projection.
	sampleSpacingM = 1000.0
)

// Alert codes Roadbook raises from OSM POIs. domain/alert has no code for
// them yet; they are stable strings of the same type.
const (
	CodeResupplyGap alert.Code = "resupply_gap"
	CodeWaterGap    alert.Code = "water_gap"
)

// sample keeps points about every spacing metres (Haversine), always the
// first and last, with their distance from the start.
func sample(pts []route.Point, spacing float64) (out []route.Point, at []float64) {
	if len(pts) == 0 {
		return nil, nil
	}
	out, at = []route.Point{pts[0]}, []float64{0}
	total, last := 0.0, 0.0
	for i := 1; i < len(pts); i++ {
		total += route.Haversine(pts[i-1], pts[i])
		if total-last >= spacing || i == len(pts)-1 {
			out, at = append(out, pts[i]), append(at, total)
			last = total
		}
	}
	return out, at
}

// longestGap returns the longest stretch (km) of the sampled line without a
// POI matching keep within radius, and where it starts.
func longestGap(line []route.Point, at []float64, pois []POI, keep func(POI) bool) (gapKm float64, from route.Point) {
	if len(line) == 0 {
		return 0, route.Point{}
	}
	var marks []float64
	for _, p := range pois {
		if !keep(p) {
			continue
		}
		best, bestD := -1, POIRadiusM+sampleSpacingM/2
		for i, q := range line {
			if d := route.Haversine(q, route.Point{Lat: p.Lat, Lon: p.Lon}); d <= bestD {
				best, bestD = i, d
			}
		}
		if best >= 0 {
			marks = append(marks, at[best])
		}
	}
	end := at[len(at)-1]
	marks = append(marks, 0, end)
	slices.Sort(marks)
	gapStart := 0.0
	for i := 1; i < len(marks); i++ {
		if g := marks[i] - marks[i-1]; g/1000 > gapKm {
			gapKm, gapStart = g/1000, marks[i-1]
		}
	}
	idx, _ := slices.BinarySearch(at, gapStart)
	return gapKm, line[min(idx, len(line)-1)]
}

// gapAlerts raises the resupply and water gap warnings of one stage.
func gapAlerts(index int, line []route.Point, at []float64, pois []POI) []alert.Alert {
	var out []alert.Alert
	for _, r := range []struct {
		code alert.Code
		what string
		keep func(POI) bool
	}{
		{CodeResupplyGap, "resupply", func(p POI) bool { return p.Resupply }},
		{CodeWaterGap, "drinking water", func(p POI) bool { return p.Water }},
	} {
		gap, from := longestGap(line, at, pois, r.keep)
		if gap > MaxGapKm {
			out = append(out, alert.Alert{
				Code: r.code, Severity: alert.SeverityWarning, StageIndex: index,
				Message:  fmt.Sprintf("No %s for %.1f km on this stage (more than %.0f km).", r.what, gap, MaxGapKm),
				HasPoint: true, Lat: from.Lat, Lon: from.Lon, Value: gap,
			})
		}
	}
	return out
}
