package alert

import "math"

// RiderTime is the DOMAIN §3 estimate of how long a day takes a loaded
// touring rider, shared by the sunset rule and the pacing engine so both
// agree on when a rider arrives.
type RiderTime struct {
	// DistanceKm is the stage distance the estimate is for.
	DistanceKm float64
	// DepartureHour is the local departure hour.
	DepartureHour float64
	// EffectiveSpeedKmh is max(5, averageSpeed − 2·(D+/500)).
	EffectiveSpeedKmh float64
	// RidingHours is the time in the saddle: km / effective speed.
	RidingHours float64
	// BreakHours is floor(riding/2)·10 min, plus one hour when Lunch.
	BreakHours float64
	// Lunch says the ride spans noon (departureHour < 12 < departureHour +
	// riding), which adds a one-hour lunch break.
	Lunch bool
}

// EstimateRiderTime applies the DOMAIN §3 rider-time rule to a stage of
// distanceKm with ascentM of climbing, for a rider whose flat speed is
// averageSpeedKmh leaving at departureHour (local).
func EstimateRiderTime(distanceKm, ascentM, averageSpeedKmh float64, departureHour int) RiderTime {
	speed := math.Max(5, averageSpeedKmh-2*(ascentM/500))
	riding := distanceKm / speed
	breaks := math.Floor(riding/2) * 10 / 60
	dep := float64(departureHour)
	lunch := dep < 12 && 12 < dep+riding
	if lunch {
		breaks++
	}
	return RiderTime{
		DistanceKm:        distanceKm,
		DepartureHour:     dep,
		EffectiveSpeedKmh: speed,
		RidingHours:       riding,
		BreakHours:        breaks,
		Lunch:             lunch,
	}
}

// DurationHours is the whole day from departure to arrival: riding plus
// breaks (and lunch).
func (r RiderTime) DurationHours() float64 {
	return r.RidingHours + r.BreakHours
}

// HourAt is the local hour (possibly past 24 on very long days) at which the
// rider passes km d: departureHour + (d/total)·(riding + breaks). Breaks are
// spread evenly along the day, as the reference does. A zero-length stage
// is "arrived" at departure.
func (r RiderTime) HourAt(d float64) float64 {
	if r.DistanceKm <= 0 {
		return r.DepartureHour
	}
	return r.DepartureHour + (d/r.DistanceKm)*r.DurationHours()
}

// ArrivalHour is the local hour of arrival at the end of the stage.
func (r RiderTime) ArrivalHour() float64 {
	return r.HourAt(r.DistanceKm)
}

// ArrivalHour is a shorthand for EstimateRiderTime(...).ArrivalHour(), for
// callers that only need the arrival time.
func ArrivalHour(distanceKm, ascentM, averageSpeedKmh float64, departureHour int) float64 {
	return EstimateRiderTime(distanceKm, ascentM, averageSpeedKmh, departureHour).ArrivalHour()
}
