package alert

import (
	"fmt"
	"math"

	"github.com/roadbook/roadbook/domain/pacing"
)

// Tolerances of the day-size rules (docs/ALERTS.md): a day the engine cut
// meets its targets to the second and the cap to the metre, so these only
// absorb what re-measuring a stage can move (the grade window and the
// climbing-run rule at its ends); a day made too big by an edit passes them
// by far.
const (
	// overCapacityTolerance is how far a day's riding time may exceed the
	// rider's daily hours before stage_over_capacity fires.
	overCapacityTolerance = 0.15
	// overCapToleranceKm is how far a day may pass maxDistancePerDay.
	overCapToleranceKm = 0.5
	// climbTolerance is how far a day's climbing (pacing.Model.ClimbedM)
	// may exceed what the rider climbs in a day before elevation_gain
	// fires: the grade window at the day's two ends, and grades steep
	// enough to walk, where the bike is pushed up a little faster than the
	// rider's climbing power would ride it.
	climbTolerance = 0.1
)

// DailyClimbM is the most a rider climbs in a day: their daily riding hours
// at the effort model's climbing rate (pacing.Model.ClimbMetresPerHour), the
// elevation_gain threshold.
func DailyClimbM(set Settings) float64 {
	return set.DailyRidingHours * pacing.NewModel(set).ClimbMetresPerHour()
}

// elevationGain flags a stage climbing more than the rider climbs in a day
// (DailyClimbM), which no day the engine sized can do, and suggests
// splitting it at half its distance. The climbing judged is the effort
// model's (pacing.Model.ClimbedM): the stage's D+ counted point by point
// when its geometry has no elevation, otherwise the climbing of its line
// plus the hidden climbing at the weight the model times it with, so
// elevation noise — which the point-by-point D+ counts and the engine's
// days do not ride — neither flags an engine-sized day nor hides a day an
// edit made too big. The message states both figures when they differ.
func elevationGain(s Stage, set Settings, m pacing.Model) (Alert, bool) {
	limit := set.DailyRidingHours * m.ClimbMetresPerHour()
	if s.RestDay {
		return Alert{}, false
	}
	climbed := m.ClimbedM(s.Points, s.AscentM)
	if climbed <= limit*(1+climbTolerance) {
		return Alert{}, false
	}
	km := s.DistanceM / 1000
	climbs := fmt.Sprintf("%.0f m", climbed)
	if math.Round(climbed) != math.Round(s.AscentM) {
		climbs = fmt.Sprintf("%.0f m once the elevation data's noise is set aside (%.0f m counted point by point)", climbed, s.AscentM)
	}
	return Alert{
		Code:       CodeElevationGain,
		Severity:   SeverityWarning,
		StageIndex: s.Index,
		Message: fmt.Sprintf("Stage %d climbs %s, more than the %.0f m you climb in a %s riding day; consider splitting it at %.1f km.",
			s.Index+1, climbs, limit, hoursText(set.DailyRidingHours), km/2),
		Value:  climbed,
		Action: &Action{Kind: ActionSplitStage, AtKm: km / 2},
	}, true
}

// overCapacity flags a stage longer than the rider's day: more riding time
// than dailyRidingHours (15 % over), or more km than maxDistancePerDay. A day
// the engine sized is within both; a day an edit made too big is not. The
// suggested split is where the riding time reaches the rider's day (or at
// the cap).
func overCapacity(s Stage, set Settings, m pacing.Model) (Alert, bool) {
	if s.RestDay || s.DistanceM <= 0 {
		return Alert{}, false
	}
	km := s.DistanceM / 1000
	ridingH := ridingSeconds(s, m) / 3600
	overTime := ridingH > set.DailyRidingHours*(1+overCapacityTolerance)
	overKm := km > set.MaxDistancePerDayKm+overCapToleranceKm
	if !overTime && !overKm {
		return Alert{}, false
	}
	at := math.Min(km*set.DailyRidingHours/ridingH, set.MaxDistancePerDayKm)
	if !overTime {
		at = set.MaxDistancePerDayKm
	}
	msg := fmt.Sprintf("Stage %d is %s of riding, more than your %s day; consider splitting it at %.1f km.",
		s.Index+1, hoursText(ridingH), hoursText(set.DailyRidingHours), at)
	if !overTime {
		msg = fmt.Sprintf("Stage %d is %.1f km, more than your %.0f km a day; consider splitting it at %.1f km.",
			s.Index+1, km, set.MaxDistancePerDayKm, at)
	}
	return Alert{
		Code:       CodeStageOverCapacity,
		Severity:   SeverityWarning,
		StageIndex: s.Index,
		Message:    msg,
		Value:      ridingH,
		Action:     &Action{Kind: ActionSplitStage, AtKm: math.Round(at*10) / 10},
	}, true
}

// hoursText writes hours as "6 h" or "5 h 24 min".
func hoursText(h float64) string {
	m := int(math.Round(h * 60))
	if m%60 == 0 {
		return fmt.Sprintf("%d h", m/60)
	}
	return fmt.Sprintf("%d h %02d min", m/60, m%60)
}

// EbikeRangeKm is the e-bike battery range of a day climbing ascentM
// (pacing.EbikeRangeKm: 80 km on the flat, 1 km less per 25 m of climbing,
// never negative); the engine keeps e-bike days within it.
func EbikeRangeKm(ascentM float64) float64 { return pacing.EbikeRangeKm(ascentM) }

// ebikeRange flags, in e-bike mode, a stage longer than the range left after
// its climbing; the suggested split is at the range.
func ebikeRange(s Stage, set Settings) (Alert, bool) {
	km := s.DistanceM / 1000
	limit := EbikeRangeKm(s.AscentM)
	if !set.EbikeMode || s.RestDay || km <= limit {
		return Alert{}, false
	}
	a := Alert{
		Code:       CodeEbikeRangeExceeded,
		Severity:   SeverityWarning,
		StageIndex: s.Index,
		Message:    fmt.Sprintf("Stage %d is %.1f km, beyond the e-bike range of %.1f km with %.0f m of climbing.", s.Index+1, km, limit, s.AscentM),
		Value:      km,
	}
	if limit > 0 {
		a.Action = &Action{Kind: ActionSplitStage, AtKm: limit}
	}
	return a, true
}
