package alert

import (
	"math"

	"github.com/roadbook/roadbook/domain/pacing"
)

// RiderTime is a riding day's schedule — departure, riding, breaks,
// arrival — from the pacing engine's effort model (docs/design/PACING.md
// "Rider time"), shared by the sunset rule, the day-size rules and the API,
// so they all agree on when a rider arrives with the engine that sized the
// day.
type RiderTime struct {
	// DistanceKm is the stage distance the estimate is for.
	DistanceKm float64
	// DepartureHour is the local departure hour.
	DepartureHour float64
	// EffectiveSpeedKmh is the day's average moving speed: distance over
	// riding time.
	EffectiveSpeedKmh float64
	// RidingHours is the time in the saddle: the effort model on the
	// day's geometry and D+ (pacing.Model.StageSeconds).
	RidingHours float64
	// BreakHours is floor(riding/2)·10 min, plus one hour when Lunch.
	BreakHours float64
	// Lunch says the ride spans noon (departureHour < 12 < departureHour +
	// riding), which adds a one-hour lunch break.
	Lunch bool
}

// EstimateRiderTime is the rider time of stage s for the trip's settings:
// riding time from the effort model (its geometry and D+; its distance, D+
// and D− when it carries no geometry), breaks of 10 minutes every two
// riding hours and an hour for lunch when the ride spans noon.
func EstimateRiderTime(s Stage, set Settings) RiderTime {
	return estimate(s, set, pacing.NewModel(set))
}

// estimate is EstimateRiderTime with the model already built.
func estimate(s Stage, set Settings, m pacing.Model) RiderTime {
	if s.RestDay || s.DistanceM <= 0 {
		return RiderTime{DepartureHour: float64(set.DepartureHour)}
	}
	riding := ridingSeconds(s, m) / 3600
	breaks := math.Floor(riding/2) * 10 / 60
	dep := float64(set.DepartureHour)
	lunch := dep < 12 && 12 < dep+riding
	if lunch {
		breaks++
	}
	return RiderTime{
		DistanceKm:        s.DistanceM / 1000,
		DepartureHour:     dep,
		EffectiveSpeedKmh: s.DistanceM / 1000 / riding,
		RidingHours:       riding,
		BreakHours:        breaks,
		Lunch:             lunch,
	}
}

// ridingSeconds is the day's modelled riding time: on its geometry when it
// has one, else on its distance, D+ and D−.
func ridingSeconds(s Stage, m pacing.Model) float64 {
	if len(s.Points) >= 2 {
		return m.StageSeconds(s.Points, s.AscentM)
	}
	return m.StatsSeconds(s.DistanceM, s.AscentM, s.DescentM)
}

// DurationHours is the whole day from departure to arrival: riding plus
// breaks (and lunch).
func (r RiderTime) DurationHours() float64 {
	return r.RidingHours + r.BreakHours
}

// HourAt is the local hour (possibly past 24 on very long days) at which the
// rider passes km d: departureHour + (d/total)·(riding + breaks). Breaks are
// spread evenly along the day. A zero-length stage is "arrived" at
// departure.
func (r RiderTime) HourAt(d float64) float64 {
	if r.DistanceKm <= 0 {
		return r.DepartureHour
	}
	return r.DepartureHour + (d/r.DistanceKm)*r.DurationHours()
}

// PassageMinute is the local minute of the day (past 1440 on a day that
// runs past midnight) at which the rider passes atM metres into the day:
// HourAt, with atM held within the day, to the minute. It is the one time
// of passage Roadbook states — whether a shop is open when the rider
// passes, the passage GetStage shows, the time the exports print — so they
// all read the schedule the sunset rule reads.
func (r RiderTime) PassageMinute(atM float64) int {
	return int(math.Round(r.HourAt(math.Min(math.Max(atM, 0)/1000, r.DistanceKm)) * 60))
}

// ArrivalHour is the local hour of arrival at the end of the stage.
func (r RiderTime) ArrivalHour() float64 {
	return r.HourAt(r.DistanceKm)
}
