package provider

import (
	"fmt"
	"slices"

	"github.com/roadbook/roadbook/domain/alert"
)

// Gap rules of DOMAIN §5 (event family "resupply").
const (
	// MaxGapKm: a stretch longer than this without resupply (or water) is
	// flagged.
	MaxGapKm = 30.0
	// POIRadiusM: a resupply or water point counts for the route when it is
	// this close to it.
	POIRadiusM = 500.0
)

// resupplyShops are the shop values selling food; every shop also sells
// water.
var resupplyShops = []string{"supermarket", "convenience", "bakery", "general", "greengrocer"}

// waterAmenities are the amenity values of drinking water (besides
// man_made=water_tap).
var waterAmenities = []string{"drinking_water", "water_point"}

// isResupply: food can be bought there.
func isResupply(tags map[string]string) bool { return slices.Contains(resupplyShops, tags["shop"]) }

// isWater: drinking water — a tap, a fountain, or a shop.
func isWater(tags map[string]string) bool {
	return isResupply(tags) || slices.Contains(waterAmenities, tags["amenity"]) || tags["man_made"] == "water_tap"
}

// longestGap returns the longest stretch (km) of the track without a
// feature matching keep within POIRadiusM, and where it starts.
func longestGap(t track, feats []Feature, keep func(map[string]string) bool) (gapKm, fromM float64) {
	marks := []float64{0, t.length()}
	for _, f := range feats {
		if !keep(f.Tags) {
			continue
		}
		if _, at, ok := t.nearest(f.Line, POIRadiusM); ok {
			marks = append(marks, at)
		}
	}
	slices.Sort(marks)
	for i := 1; i < len(marks); i++ {
		if g := (marks[i] - marks[i-1]) / 1000; g > gapKm {
			gapKm, fromM = g, marks[i-1]
		}
	}
	return gapKm, fromM
}

// gapAlerts raises the resupply and water gap warnings of one stage: a
// stretch of more than MaxGapKm without the point within POIRadiusM.
func gapAlerts(index int, t track, feats []Feature) []alert.Alert {
	if len(t.pts) < 2 {
		return nil
	}
	var out []alert.Alert
	for _, r := range []struct {
		code alert.Code
		what string
		keep func(map[string]string) bool
	}{
		{alert.CodeResupplyGap, "resupply", isResupply},
		{alert.CodeWaterGap, "drinking water", isWater},
	} {
		gap, from := longestGap(t, feats, r.keep)
		if gap > MaxGapKm {
			p := t.pointAt(from)
			out = append(out, alert.Alert{
				Code: r.code, Severity: alert.SeverityWarning, StageIndex: index,
				Message:  fmt.Sprintf("No %s for %.1f km on this stage (more than %.0f km), from %.1f km in.", r.what, gap, MaxGapKm, from/1000),
				HasPoint: true, Lat: p.Lat, Lon: p.Lon, Value: round1(gap),
			})
		}
	}
	return out
}
