package provider

import (
	"fmt"
	"slices"

	"github.com/roadbook/roadbook/domain/alert"
)

// Road rules of DOMAIN §5 (event families "traffic" and "surface"). A
// stretch of the stage "runs on" a way when the stage, resampled every
// trackStepM, stays within onWayM of the way's geometry; a way merely
// crossing the route adds nothing.
const (
	// onWayM: how close the route must stay to a way to be riding on it
	// (stage geometry is decimated to 20 m, GPS tracks wander a few metres).
	onWayM = 25.0

	// TrafficMinKm and TrafficShare: traffic_primary_road is raised when
	// at least min(TrafficMinKm, TrafficShare × stage length) — but never
	// less than TrafficFloorKm — of the stage runs on trunk or primary roads
	// without a separated cycleway.
	TrafficMinKm   = 5.0
	TrafficShare   = 0.25
	TrafficFloorKm = 1.0

	// RoughMinKm and RoughShare: rough_surface is raised when at least
	// RoughMinKm and at least RoughShare of the stage run on rough ways.
	RoughMinKm = 5.0
	RoughShare = 0.20
)

// mainRoads are the highway values of the traffic rule.
var mainRoads = []string{"trunk", "primary"}

// separatedCycleway are the cycleway values that keep a rider off the
// carriageway's traffic (on cycleway, cycleway:both, :left or :right).
var separatedCycleway = []string{"track", "lane", "separate"}

// roughSurfaces are the surface values of the surface rule. fine_gravel and
// compacted are smooth enough for any touring bike and are not listed.
var roughSurfaces = []string{"unpaved", "gravel", "dirt", "ground", "earth", "sand", "mud", "grass", "pebblestone", "rock", "woodchips"}

// roughTracktypes are the tracktype values counted rough when a way has no
// surface tag (grade1–2 are paved or solid).
var roughTracktypes = []string{"grade3", "grade4", "grade5"}

// isBusyRoad: a trunk or primary road with no separated cycleway.
func isBusyRoad(tags map[string]string) bool {
	if !slices.Contains(mainRoads, tags["highway"]) {
		return false
	}
	for _, k := range []string{"cycleway", "cycleway:both", "cycleway:left", "cycleway:right"} {
		if slices.Contains(separatedCycleway, tags[k]) {
			return false
		}
	}
	return true
}

// isRough: a rough surface, or — when the way has no surface tag — a rough
// tracktype. A surface tag wins: a grade3 track with surface=compacted is
// smooth enough.
func isRough(tags map[string]string) bool {
	if s, ok := tags["surface"]; ok {
		return slices.Contains(roughSurfaces, s)
	}
	return slices.Contains(roughTracktypes, tags["tracktype"])
}

// roadAlerts raises traffic_primary_road and rough_surface for one stage.
func roadAlerts(index int, t track, feats []Feature) []alert.Alert {
	if len(t.pts) < 2 {
		return nil
	}
	busy, rough := make([]bool, len(t.pts)), make([]bool, len(t.pts))
	for _, f := range feats {
		if f.Type != "way" {
			continue
		}
		if isBusyRoad(f.Tags) {
			t.cover(f.Line, onWayM, busy)
		}
		if isRough(f.Tags) {
			t.cover(f.Line, onWayM, rough)
		}
	}
	stageKm := t.length() / 1000
	var out []alert.Alert
	if km, longest := t.runs(busy); km > 0 {
		km /= 1000
		threshold := max(TrafficFloorKm, min(TrafficMinKm, TrafficShare*stageKm))
		if km >= threshold {
			p := t.pointAt(longest.from)
			out = append(out, alert.Alert{
				Code: alert.CodeTrafficPrimaryRoad, Severity: alert.SeverityWarning, StageIndex: index,
				Message: fmt.Sprintf("%.1f km of this stage run on trunk or primary roads without a separated cycleway (threshold %.1f km); the longest stretch starts %.1f km in.",
					km, threshold, longest.from/1000),
				HasPoint: true, Lat: p.Lat, Lon: p.Lon, Value: round1(km),
			})
		}
	}
	if km, longest := t.runs(rough); km > 0 {
		km /= 1000
		if km >= RoughMinKm && km >= RoughShare*stageKm {
			p := t.pointAt(longest.from)
			out = append(out, alert.Alert{
				Code: alert.CodeRoughSurface, Severity: alert.SeverityWarning, StageIndex: index,
				Message: fmt.Sprintf("%.1f km (%.0f %%) of this stage run on unpaved or rough surfaces; the longest stretch starts %.1f km in.",
					km, 100*km/stageKm, longest.from/1000),
				HasPoint: true, Lat: p.Lat, Lon: p.Lon, Value: round1(km),
			})
		}
	}
	return out
}
