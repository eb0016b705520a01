package provider

import (
	"math"

	"github.com/roadbook/roadbook/domain/alert"
)

// osmAlerts applies every OSM rule to one stage and what Along found.
func osmAlerts(s Stage, feats []Feature) []alert.Alert {
	t := newTrack(s.Points, trackStepM)
	var out []alert.Alert
	for _, rule := range []func(int, track, []Feature) []alert.Alert{
		roadAlerts, gapAlerts, serviceAlerts, crossingAlerts, cultureAlert,
	} {
		out = append(out, rule(s.Index, t, feats)...)
	}
	return out
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
