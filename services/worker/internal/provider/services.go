package provider

import (
	"fmt"
	"slices"

	"github.com/roadbook/roadbook/domain/alert"
)

// Service rules of DOMAIN §5 (event family "services"): each is raised once
// per stage when nothing of its kind lies within its radius of the stage's
// route (measured from the resampled track, not only the stage ends).
const (
	// BikeShopRadiusM: no_bike_shop (nudge) when no shop=bicycle is this
	// close.
	BikeShopRadiusM = 2000.0
	// RailwayRadiusM: no_railway_station (nudge) when no railway=station or
	// halt (or public_transport=station with train=yes) is this close — no
	// bail-out by train.
	RailwayRadiusM = 10000.0
	// HealthRadiusM: no_health_service (warning) when no
	// amenity=hospital, clinic, doctors or pharmacy is this close.
	HealthRadiusM = 15000.0
)

// railwayKinds are the railway values of a station a rider can board.
var railwayKinds = []string{"station", "halt"}

// notMainline are station= values that take no bicycle out of trouble.
var notMainline = []string{"subway", "miniature"}

// healthAmenities are the amenity values of the health rule.
var healthAmenities = []string{"hospital", "clinic", "doctors", "pharmacy"}

func isBikeShop(tags map[string]string) bool { return tags["shop"] == "bicycle" }

func isStation(tags map[string]string) bool {
	if slices.Contains(notMainline, tags["station"]) {
		return false
	}
	return slices.Contains(railwayKinds, tags["railway"]) ||
		(tags["public_transport"] == "station" && tags["train"] == "yes")
}

func isHealth(tags map[string]string) bool { return slices.Contains(healthAmenities, tags["amenity"]) }

// serviceAlerts raises the "nothing within reach" alerts of one stage.
func serviceAlerts(index int, t track, feats []Feature) []alert.Alert {
	if len(t.pts) < 2 {
		return nil
	}
	var out []alert.Alert
	for _, r := range []proximityRule{
		{code: alert.CodeNoBikeShop, severity: alert.SeverityNudge, radius: BikeShopRadiusM, keep: isBikeShop,
			message: "No bicycle shop within %.0f km of this stage: carry spares and the tools to fit them."},
		{code: alert.CodeNoRailwayStation, severity: alert.SeverityNudge, radius: RailwayRadiusM, keep: isStation,
			message: "No railway station within %.0f km of this stage: no bail-out by train."},
		{code: alert.CodeNoHealthService, severity: alert.SeverityWarning, radius: HealthRadiusM, keep: isHealth,
			message: "No hospital, clinic, doctor or pharmacy within %.0f km of this stage: carry a first-aid kit."},
	} {
		found := slices.ContainsFunc(feats, func(f Feature) bool {
			if !r.keep(f.Tags) {
				return false
			}
			_, _, ok := t.nearest(f.Line, r.radius)
			return ok
		})
		if !found {
			out = append(out, alert.Alert{
				Code: r.code, Severity: r.severity, StageIndex: index,
				Message: fmt.Sprintf(r.message, r.radius/1000),
			})
		}
	}
	return out
}
