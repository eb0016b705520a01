package provider

import (
	"math"

	"github.com/roadbook/roadbook/domain/alert"
)

// The event families of the OSM rules (DOMAIN §5), as the analysis reports
// them per stage: one Overpass query per stage evaluates all six, so an
// Overpass that is off or failing makes all six not_configured or
// unavailable together — never a silent "no alerts".
const (
	// FamilyTraffic: traffic_primary_road, traffic_fast_secondary_road.
	FamilyTraffic = "traffic"
	// FamilySurface: rough_surface.
	FamilySurface = "surface"
	// FamilyResupply: resupply_gap, water_gap, resupply_closed_at_passage.
	FamilyResupply = "resupply"
	// FamilyServices: no_bike_shop, no_railway_station, no_health_service.
	FamilyServices = "services"
	// FamilyCrossings: ferry_crossing, ford_crossing (borders are offline).
	FamilyCrossings = "crossings"
	// FamilyCulture: cultural_poi.
	FamilyCulture = "culture"
)

// OSMFamilies are the event families the Overpass rules cover.
func OSMFamilies() []string {
	return []string{FamilyTraffic, FamilySurface, FamilyResupply, FamilyServices, FamilyCrossings, FamilyCulture}
}

// osmCodeFamily is the event family of each OSM alert code.
var osmCodeFamily = map[alert.Code]string{
	alert.CodeTrafficPrimaryRoad:       FamilyTraffic,
	alert.CodeTrafficFastSecondaryRoad: FamilyTraffic,
	alert.CodeRoughSurface:             FamilySurface,
	alert.CodeResupplyGap:              FamilyResupply,
	alert.CodeWaterGap:                 FamilyResupply,
	alert.CodeResupplyClosedAtPassage:  FamilyResupply,
	alert.CodeNoBikeShop:               FamilyServices,
	alert.CodeNoRailwayStation:         FamilyServices,
	alert.CodeNoHealthService:          FamilyServices,
	alert.CodeFerryCrossing:            FamilyCrossings,
	alert.CodeFordCrossing:             FamilyCrossings,
	alert.CodeCulturalPOI:              FamilyCulture,
}

// EventFamily is the event family of an OSM alert code, or "" for a code
// the OSM rules do not raise.
func EventFamily(c alert.Code) string { return osmCodeFamily[c] }

// osmAlerts applies every OSM rule to one stage (resampled as t), what
// Along found and the stage's resupply points (with their open-at-passage).
func osmAlerts(s Stage, t track, feats []Feature, pts []alert.ResupplyPoint) []alert.Alert {
	var out []alert.Alert
	for _, rule := range []func(int, track, []Feature) []alert.Alert{
		roadAlerts, serviceAlerts, crossingAlerts, cultureAlert,
	} {
		out = append(out, rule(s.Index, t, feats)...)
	}
	return append(out, gapAlerts(s.Index, t, feats, pts)...)
}

// round1 rounds a measured value to one decimal, as messages show it.
func round1(v float64) float64 { return math.Round(v*10) / 10 }

// proximityRule is one rule that looks for OSM features of a kind within a
// radius of the stage: the crossings (one alert per feature found) and the
// services (one alert when none is found). message is a format with one
// verb, the distance in km (into the stage, or the radius).
type proximityRule struct {
	code     alert.Code
	severity alert.Severity
	radius   float64
	keep     func(tags map[string]string) bool
	message  string
	// rides, when set, asks more of a way than being near: the route must
	// ride it (a ferry line the route takes, not one whose terminal it
	// passes; see rides).
	rides bool
}
