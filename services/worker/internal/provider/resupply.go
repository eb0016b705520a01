package provider

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/roadbook/roadbook/domain/alert"
)

// Resupply points of a stage (DOMAIN §5's resupply data, kept as an
// analysis result): every drinking water point, spring, food shop and café
// within POIRadiusM of the route that the stage query already fetched,
// measured along the day, the nearest few per kind and stretch kept
// (alert.SelectResupply), each with whether it is open when the rider
// passes.

// foodAmenities are the amenity values of somewhere to eat.
var foodAmenities = []string{"cafe", "restaurant", "fast_food"}

// resupplyKindOf classifies a feature for the resupply list; false when it
// is none. A spring tagged drinking_water=no is not water.
func resupplyKindOf(tags map[string]string) (alert.ResupplyKind, bool) {
	switch {
	case isResupply(tags):
		return alert.ResupplyShop, true
	case slices.Contains(foodAmenities, tags["amenity"]):
		return alert.ResupplyFood, true
	case slices.Contains(waterAmenities, tags["amenity"]) || tags["man_made"] == "water_tap":
		return alert.ResupplyWater, tags["drinking_water"] != "no"
	case tags["natural"] == "spring":
		return alert.ResupplyWater, tags["drinking_water"] != "no"
	}
	return "", false
}

// resupplyPoints measures every resupply feature within POIRadiusM of the
// track: where along the stage the route passes it and how far off it is.
func resupplyPoints(t track, feats []Feature) []alert.ResupplyPoint {
	var out []alert.ResupplyPoint
	for _, f := range feats {
		kind, ok := resupplyKindOf(f.Tags)
		if !ok {
			continue
		}
		off, at, ok := t.nearest(f.Line[:1], POIRadiusM)
		if !ok {
			continue
		}
		p := f.Line[0]
		name := poiName(f.Tags["name"])
		if name == "" && f.Tags["natural"] == "spring" {
			name = "Spring"
		}
		out = append(out, alert.ResupplyPoint{Kind: kind, ID: f.ID, Name: name,
			Lat: p.Lat, Lon: p.Lon, AtM: math.Round(at), OffRouteM: math.Round(off),
			OpeningHours: openingHours(f.Tags["opening_hours"])})
	}
	return out
}

// openingHours is an OSM opening_hours value fit to keep: one line of
// printable text, at most 255 bytes (longer values are dropped: they are
// never the simple hours alert.OpenAt reads).
func openingHours(raw string) string {
	v := strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, raw)), " ")
	if len(v) > 255 {
		return ""
	}
	return v
}

// openAtPassage sets Open on each point of a dated stage: whether its hours
// say it is open when the rider passes (the day's schedule, Stage.Rider,
// read at the point: alert.RiderTime.PassageMinute). Undated stages,
// stages without a schedule, and passages after midnight stay unknown.
func (a *Analyzer) openAtPassage(s Stage, pts []alert.ResupplyPoint) {
	if s.Date.IsZero() || s.Rider.DistanceKm <= 0 {
		return
	}
	for i := range pts {
		p := &pts[i]
		if p.OpeningHours == "" {
			continue
		}
		holiday := a.Holiday != nil && a.Holiday(p.Lat, p.Lon, s.Date)
		p.Open = alert.OpenAt(p.OpeningHours, s.Date, s.Rider.PassageMinute(p.AtM), holiday)
	}
}
