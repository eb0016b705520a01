package provider

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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

	// TrafficMinKm and TrafficShare: traffic_primary_road (and
	// traffic_fast_secondary_road) is raised when at least
	// min(TrafficMinKm, TrafficShare × stage length) — but never less than
	// TrafficFloorKm — of the stage runs on such roads without a separated
	// cycleway.
	TrafficMinKm   = 5.0
	TrafficShare   = 0.25
	TrafficFloorKm = 1.0
	// FastSecondaryKmh: a secondary road is fast from this speed limit
	// (maxspeed, or a rural default or national limit named by maxspeed,
	// maxspeed:type, source:maxspeed or zone:maxspeed, such as "DE:rural";
	// fastImplicitLimit).
	FastSecondaryKmh = 70.0

	// RoughNudgeKm: rough_surface is a nudge from this many km of rough
	// surface or cobbles (the reference flags 500 m); a warning when it is
	// also at least RoughMinKm and RoughShare of the stage.
	RoughNudgeKm = 0.5
	RoughMinKm   = 5.0
	RoughShare   = 0.20
)

// mainRoads are the highway values of the traffic rule.
var mainRoads = []string{"trunk", "primary"}

// separatedCycleway are the cycleway values that keep a rider off the
// carriageway's traffic (on cycleway, cycleway:both, :left or :right).
var separatedCycleway = []string{"track", "lane", "separate"}

// roughSurfaces are the surface values of the surface rule. fine_gravel and
// compacted are smooth enough for any touring bike and are not listed;
// cobbles are (cobbleSurfaces), and counted apart in the message.
var roughSurfaces = []string{"unpaved", "gravel", "dirt", "ground", "earth", "sand", "mud", "grass", "pebblestone", "rock", "woodchips",
	"sett", "cobblestone", "unhewn_cobblestone", "stepping_stones"}

// cobbleSurfaces are the cobbled surface values.
var cobbleSurfaces = []string{"sett", "cobblestone", "unhewn_cobblestone"}

// roughSmoothness are the smoothness values read as rough when a way has no
// surface tag.
var roughSmoothness = []string{"bad", "very_bad", "horrible", "very_horrible", "impassable"}

// roughTracktypes are the tracktype values counted rough when a way has
// neither a surface nor a smoothness tag (grade1–2 are paved or solid).
var roughTracktypes = []string{"grade3", "grade4", "grade5"}

// hasSeparatedCycleway: a cycle track, lane or separate cycleway beside the
// carriageway.
func hasSeparatedCycleway(tags map[string]string) bool {
	for _, k := range []string{"cycleway", "cycleway:both", "cycleway:left", "cycleway:right"} {
		if slices.Contains(separatedCycleway, tags[k]) {
			return true
		}
	}
	return false
}

// isBusyRoad: a trunk or primary road with no separated cycleway.
func isBusyRoad(tags map[string]string) bool {
	return slices.Contains(mainRoads, tags["highway"]) && !hasSeparatedCycleway(tags)
}

// isFastSecondary: a secondary road limited to FastSecondaryKmh or more,
// with no separated cycleway.
func isFastSecondary(tags map[string]string) bool {
	if tags["highway"] != "secondary" || hasSeparatedCycleway(tags) {
		return false
	}
	if v, ok := speedKmh(tags["maxspeed"]); ok {
		return v >= FastSecondaryKmh
	}
	for _, k := range []string{"maxspeed", "maxspeed:type", "source:maxspeed", "zone:maxspeed"} {
		if fastImplicitLimit(tags[k]) {
			return true
		}
	}
	return false
}

// fastImplicitLimit: a limit named rather than given as a number, every one
// of them at least FastSecondaryKmh — a country's rural default
// ("DE:rural", "NO:rural", "FR:rural", "SE:rural"…), Britain's national
// speed limit on single or dual carriageways ("GB:nsl_single", 60 mph;
// "GB:nsl_dual", 70 mph; not "GB:nsl_restricted", 30 mph), or "none".
// maxspeed=DE:rural is how much of Europe maps a rural road's limit.
func fastImplicitLimit(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v == "none" || strings.HasSuffix(v, ":rural") || v == "gb:nsl_single" || v == "gb:nsl_dual"
}

// speedKmh reads a maxspeed value: "80", "80 km/h", "50 mph"; false for
// "none", "walk", implicit zones and anything else.
func speedKmh(v string) (float64, bool) {
	f := strings.Fields(strings.ToLower(v))
	if len(f) == 0 {
		return 0, false
	}
	n, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, false
	}
	if len(f) > 1 && f[1] == "mph" {
		n *= 1.609344
	}
	return n, true
}

// isRough: a rough surface (cobbles included); when the way has no surface
// tag, a bad smoothness; when it has neither, a rough tracktype. A surface
// tag wins: a grade3 track with surface=compacted is smooth enough.
func isRough(tags map[string]string) bool {
	if s, ok := tags["surface"]; ok {
		return slices.Contains(roughSurfaces, s)
	}
	if s, ok := tags["smoothness"]; ok {
		return slices.Contains(roughSmoothness, s)
	}
	return slices.Contains(roughTracktypes, tags["tracktype"])
}

func isCobbled(tags map[string]string) bool { return slices.Contains(cobbleSurfaces, tags["surface"]) }

// roadAlerts raises traffic_primary_road, traffic_fast_secondary_road and
// rough_surface for one stage.
func roadAlerts(index int, t track, feats []Feature) []alert.Alert {
	if len(t.pts) < 2 {
		return nil
	}
	busy, fast := make([]bool, len(t.pts)), make([]bool, len(t.pts))
	rough, cobbles := make([]bool, len(t.pts)), make([]bool, len(t.pts))
	for _, f := range feats {
		if f.Type != "way" {
			continue
		}
		if isBusyRoad(f.Tags) {
			t.cover(f.Line, onWayM, busy)
		}
		if isFastSecondary(f.Tags) {
			t.cover(f.Line, onWayM, fast)
		}
		if isRough(f.Tags) {
			t.cover(f.Line, onWayM, rough)
		}
		if isCobbled(f.Tags) {
			t.cover(f.Line, onWayM, cobbles)
		}
	}
	stageKm := t.length() / 1000
	threshold := max(TrafficFloorKm, min(TrafficMinKm, TrafficShare*stageKm))
	var out []alert.Alert
	for _, r := range []struct {
		code  alert.Code
		marks []bool
		what  string
	}{
		{alert.CodeTrafficPrimaryRoad, busy, "trunk or primary roads"},
		{alert.CodeTrafficFastSecondaryRoad, fast, fmt.Sprintf("secondary roads limited to %.0f km/h or more", FastSecondaryKmh)},
	} {
		km, longest := t.runs(r.marks)
		km /= 1000
		if km <= 0 || km < threshold {
			continue
		}
		p := t.pointAt(longest.from)
		out = append(out, alert.Alert{
			Code: r.code, Severity: alert.SeverityWarning, StageIndex: index,
			Message: fmt.Sprintf("%.1f km of this stage run on %s without a separated cycleway (threshold %.1f km); the longest stretch starts %.1f km in.",
				km, r.what, threshold, longest.from/1000),
			HasPoint: true, Lat: p.Lat, Lon: p.Lon, Value: round1(km),
		})
	}
	if km, longest := t.runs(rough); km/1000 >= RoughNudgeKm {
		km /= 1000
		cobbleKm, _ := t.runs(cobbles)
		sev := alert.SeverityNudge
		if km >= RoughMinKm && km >= RoughShare*stageKm {
			sev = alert.SeverityWarning
		}
		of := ""
		if cobbleKm >= 100 {
			of = fmt.Sprintf(", of which %.1f km on cobbles", cobbleKm/1000)
		}
		p := t.pointAt(longest.from)
		out = append(out, alert.Alert{
			Code: alert.CodeRoughSurface, Severity: sev, StageIndex: index,
			Message: fmt.Sprintf("%.1f km (%.0f %%) of this stage run on unpaved or rough surfaces%s; the longest stretch, %.1f km, starts %.1f km in.",
				km, 100*km/stageKm, of, (longest.to-longest.from)/1000, longest.from/1000),
			HasPoint: true, Lat: p.Lat, Lon: p.Lon, Value: round1(km),
			Metrics: map[string]float64{"cobbles_km": round1(cobbleKm / 1000)},
		})
	}
	return out
}
