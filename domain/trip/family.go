package trip

import "github.com/roadbook/roadbook/domain/alert"

// Family is a rule family: what an alert is about, and the unit whose
// availability an analysis records for each stage (RuleFamily in the events
// and the API). It is the one taxonomy of the rules: the offline engine, the
// data providers, the worker and the API all name families with it.
type Family string

// The families, in the events' order.
const (
	FamilyGeometry  Family = "geometry"
	FamilyDaylight  Family = "daylight"
	FamilyPacing    Family = "pacing"
	FamilyCalendar  Family = "calendar"
	FamilyTraffic   Family = "traffic"
	FamilySurface   Family = "surface"
	FamilyResupply  Family = "resupply"
	FamilyServices  Family = "services"
	FamilyCrossings Family = "crossings"
	FamilyCulture   Family = "culture"
	FamilyWeather   Family = "weather"
)

// Families lists every family in the events' order.
func Families() []Family {
	return []Family{FamilyGeometry, FamilyDaylight, FamilyPacing, FamilyCalendar, FamilyTraffic, FamilySurface,
		FamilyResupply, FamilyServices, FamilyCrossings, FamilyCulture, FamilyWeather}
}

// SourceFamilies are the families one source of rule data evaluates
// together, so one answer (or one outage) settles all of them:
// alert.FamilyGeometry is the offline engine (alert.Evaluate, always
// evaluable), alert.FamilyOSM one Overpass query per stage, alert.FamilyWeather
// a forecast. A data source that fails makes each of its families
// unavailable; one not configured leaves them not configured.
func SourceFamilies(source alert.RuleFamily) []Family {
	switch source {
	case alert.FamilyGeometry:
		return []Family{FamilyGeometry, FamilyDaylight, FamilyPacing, FamilyCalendar}
	case alert.FamilyOSM:
		return []Family{FamilyTraffic, FamilySurface, FamilyResupply, FamilyServices, FamilyCrossings, FamilyCulture}
	case alert.FamilyWeather:
		return []Family{FamilyWeather}
	}
	return nil
}

// Provided reports whether only a data provider evaluates f (everything
// the offline engine does not): without one, f is not configured.
func (f Family) Provided() bool {
	switch f {
	case FamilyGeometry, FamilyDaylight, FamilyPacing, FamilyCalendar, "":
		return false
	}
	return true
}

// codeFamily is the family of every alert code the rules raise.
var codeFamily = map[alert.Code]Family{
	alert.CodeContinuityGapCritical:      FamilyGeometry,
	alert.CodeContinuityGapWarning:       FamilyGeometry,
	alert.CodeElevationGain:              FamilyGeometry,
	alert.CodeSteepGradient:              FamilyGeometry,
	alert.CodeEbikeRangeExceeded:         FamilyGeometry,
	alert.CodeSunsetArrivalAfterTwilight: FamilyDaylight,
	alert.CodeRestDaySuggested:           FamilyPacing,
	alert.CodePacingOverCapacity:         FamilyPacing,
	alert.CodeCalendarSunday:             FamilyCalendar,
	alert.CodeCalendarPublicHoliday:      FamilyCalendar,
	alert.CodeTrafficPrimaryRoad:         FamilyTraffic,
	alert.CodeRoughSurface:               FamilySurface,
	alert.CodeResupplyGap:                FamilyResupply,
	alert.CodeWaterGap:                   FamilyResupply,
	alert.CodeNoBikeShop:                 FamilyServices,
	alert.CodeNoRailwayStation:           FamilyServices,
	alert.CodeNoHealthService:            FamilyServices,
	alert.CodeBorderCrossing:             FamilyCrossings,
	alert.CodeFerryCrossing:              FamilyCrossings,
	alert.CodeFordCrossing:               FamilyCrossings,
	alert.CodeCulturalPOI:                FamilyCulture,
	alert.CodeHeadwind:                   FamilyWeather,
	alert.CodeWeatherComfortLow:          FamilyWeather,
}

// FamilyOf is the family of an alert code; "" for a code no rule raises.
func FamilyOf(c alert.Code) Family { return codeFamily[c] }
