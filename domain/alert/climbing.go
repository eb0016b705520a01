package alert

import (
	"fmt"
	"math"
)

// elevationGainLimitM is the D+ above which a stage is flagged (DOMAIN §5).
const elevationGainLimitM = 1200.0

// elevationGain flags a stage climbing more than 1200 m and suggests
// splitting it at half its distance.
func elevationGain(s Stage) (Alert, bool) {
	if s.RestDay || s.AscentM <= elevationGainLimitM {
		return Alert{}, false
	}
	km := s.DistanceM / 1000
	return Alert{
		Code:       CodeElevationGain,
		Severity:   SeverityWarning,
		StageIndex: s.Index,
		Message:    fmt.Sprintf("Stage %d climbs %.0f m (more than %.0f m); consider splitting it at %.1f km.", s.Index+1, s.AscentM, elevationGainLimitM, km/2),
		Value:      s.AscentM,
		Action:     &Action{Kind: ActionSplitStage, AtKm: km / 2},
	}, true
}

// EbikeRangeKm is the DOMAIN §5 e-bike battery range of a day climbing
// ascentM: 80 km on the flat, 1 km less per 25 m of climbing, never negative.
func EbikeRangeKm(ascentM float64) float64 {
	return math.Max(0, 80-ascentM/25)
}

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
