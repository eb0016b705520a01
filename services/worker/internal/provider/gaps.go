package provider

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

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
	// maxClosedNamed bounds the closed shops a message names.
	maxClosedNamed = 3
)

// resupplyShops are the shop values selling food; every shop also sells
// water.
var resupplyShops = []string{"supermarket", "convenience", "bakery", "general", "greengrocer"}

// waterAmenities are the amenity values of drinking water (besides
// man_made=water_tap and natural=spring).
var waterAmenities = []string{"drinking_water", "water_point"}

// isResupply: food can be bought there.
func isResupply(tags map[string]string) bool { return slices.Contains(resupplyShops, tags["shop"]) }

// isWater: drinking water — a tap, a fountain, a shop, or a spring tagged
// drinking_water=yes (an untagged spring may be dry or unsafe: it is listed
// for the rider but does not close a water gap).
func isWater(tags map[string]string) bool {
	if tags["drinking_water"] == "no" {
		return isResupply(tags)
	}
	return isResupply(tags) || slices.Contains(waterAmenities, tags["amenity"]) || tags["man_made"] == "water_tap" ||
		(tags["natural"] == "spring" && tags["drinking_water"] == "yes")
}

// gapEnd is one end of a gap: a point that closes it, or the stage's start
// or end.
type gapEnd struct {
	at   float64
	name string
}

func (e gapEnd) describe(t track) string {
	switch {
	case e.at == 0:
		return "the start"
	case e.at >= t.length():
		return fmt.Sprintf("the end (km %.1f)", t.length()/1000)
	case e.name != "":
		return fmt.Sprintf("km %.1f (%s)", e.at/1000, e.name)
	}
	return fmt.Sprintf("km %.1f", e.at/1000)
}

// longestGap is the longest stretch of the track between two of the points
// (and the stage's ends), and the points bounding it.
func longestGap(t track, marks []gapEnd) (gapKm float64, from, to gapEnd) {
	marks = append([]gapEnd{{at: 0}, {at: t.length()}}, marks...)
	slices.SortStableFunc(marks, func(a, b gapEnd) int { return cmp.Compare(a.at, b.at) })
	for i := 1; i < len(marks); i++ {
		if g := (marks[i].at - marks[i-1].at) / 1000; g > gapKm {
			gapKm, from, to = g, marks[i-1], marks[i]
		}
	}
	return gapKm, from, to
}

// featureMarks are where the features keep selects close the gap (within
// POIRadiusM of the route).
func featureMarks(t track, feats []Feature, keep func(map[string]string) bool) []gapEnd {
	var out []gapEnd
	for _, f := range feats {
		if !keep(f.Tags) {
			continue
		}
		if _, at, ok := t.nearest(f.Line, POIRadiusM); ok {
			out = append(out, gapEnd{at: at, name: poiName(f.Tags["name"])})
		}
	}
	return out
}

// gapAlerts raises the resupply and water gap warnings of one stage — a
// stretch of more than MaxGapKm without the point within POIRadiusM, named
// by where it starts and ends — and resupply_closed_at_passage when the
// shops on the way are closed when the rider passes and that leaves a
// longer stretch than MaxGapKm with nothing open (shops whose hours are
// unknown count as open).
func gapAlerts(index int, t track, feats []Feature, pts []alert.ResupplyPoint) []alert.Alert {
	if len(t.pts) < 2 {
		return nil
	}
	var out []alert.Alert
	var shopGap float64
	for _, r := range []struct {
		code alert.Code
		what string
		keep func(map[string]string) bool
	}{
		{alert.CodeResupplyGap, "food shop", isResupply},
		{alert.CodeWaterGap, "drinking water", isWater},
	} {
		gap, from, to := longestGap(t, featureMarks(t, feats, r.keep))
		if r.code == alert.CodeResupplyGap {
			shopGap = gap
		}
		if gap > MaxGapKm {
			out = append(out, gapAlert(r.code, index, t, gap, from, to,
				fmt.Sprintf("No %s within %.0f m of the route for %.1f km (more than %.0f km): from %s to %s.",
					r.what, POIRadiusM, gap, MaxGapKm, from.describe(t), to.describe(t))))
		}
	}

	var open []gapEnd
	var closed []string
	for _, p := range pts {
		if p.Kind != alert.ResupplyShop {
			continue
		}
		if p.Open == alert.Closed {
			name := p.Name
			if name == "" {
				name = "a shop"
			}
			closed = append(closed, fmt.Sprintf("%s at km %.1f", name, p.AtM/1000))
			continue
		}
		open = append(open, gapEnd{at: p.AtM, name: p.Name})
	}
	if len(closed) > 0 {
		gap, from, to := longestGap(t, open)
		if gap > MaxGapKm && gap > shopGap+0.05 {
			named := closed[:min(len(closed), maxClosedNamed)]
			more := ""
			if n := len(closed) - len(named); n > 0 {
				more = fmt.Sprintf(" and %d more", n)
			}
			out = append(out, gapAlert(alert.CodeResupplyClosedAtPassage, index, t, gap, from, to,
				fmt.Sprintf("No food shop open when you pass for %.1f km: from %s to %s (closed then: %s%s). Buy food before.",
					gap, from.describe(t), to.describe(t), strings.Join(named, ", "), more)))
		}
	}
	return out
}

// gapAlert is a gap warning located where the gap starts, with its length
// (value) and its ends in km.
func gapAlert(code alert.Code, index int, t track, gapKm float64, from, to gapEnd, msg string) alert.Alert {
	p := t.pointAt(from.at)
	return alert.Alert{
		Code: code, Severity: alert.SeverityWarning, StageIndex: index, Message: msg,
		HasPoint: true, Lat: p.Lat, Lon: p.Lon, Value: round1(gapKm),
		Metrics: map[string]float64{"from_km": round1(from.at / 1000), "to_km": round1(to.at / 1000)},
	}
}
