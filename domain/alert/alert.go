package alert

// Severity ranks an alert so a frontend or an agent can decide what must be
// fixed before leaving (critical), what deserves a look (warning) and what is
// only a friendly suggestion (nudge).
type Severity string

// The three severities of DOMAIN §5.
const (
	// SeverityCritical marks a plan that is broken as it stands.
	SeverityCritical Severity = "critical"
	// SeverityWarning marks a plan that is rideable but risky or hard.
	SeverityWarning Severity = "warning"
	// SeverityNudge marks a suggestion that improves comfort.
	SeverityNudge Severity = "nudge"
)

// Code identifies an alert rule. Codes are part of the public contract (API,
// MCP, stored events) and never change once released; messages may.
type Code string

// The stable codes. Geometry-only rules are evaluated by Evaluate; the
// weather codes by the pure functions in weather.go; PacingOverCapacity is
// raised by the pacing engine and only named here so every code lives in one
// place.
const (
	// CodeContinuityGapCritical: more than 500 m between a stage end and the
	// next stage start.
	CodeContinuityGapCritical Code = "continuity_gap_critical"
	// CodeContinuityGapWarning: more than 100 m (and at most 500 m) between a
	// stage end and the next stage start.
	CodeContinuityGapWarning Code = "continuity_gap_warning"
	// CodeElevationGain: a stage climbs more than the rider climbs in a day
	// (DailyClimbM).
	CodeElevationGain Code = "elevation_gain"
	// CodeStageOverCapacity: a stage takes more riding time than the
	// rider's daily hours, or more km than their daily cap.
	CodeStageOverCapacity Code = "stage_over_capacity"
	// CodeSteepGradient: at least 500 m of consecutive segments each at 8 % or
	// more.
	CodeSteepGradient Code = "steep_gradient"
	// CodeEbikeRangeExceeded: in e-bike mode, a stage longer than the battery
	// range left after its climbing.
	CodeEbikeRangeExceeded Code = "ebike_range_exceeded"
	// CodeSunsetArrivalAfterTwilight: the estimated arrival is after the end
	// of civil twilight at the stage end.
	CodeSunsetArrivalAfterTwilight Code = "sunset_arrival_after_twilight"
	// CodeRestDaySuggested: as many riding days in a row as bring the
	// rider's days down to the fatigue floor (or longer than their planned
	// rhythm), with more to come.
	CodeRestDaySuggested Code = "rest_day_suggested"
	// CodeCalendarSunday: the stage is ridden on a Sunday (shops closed).
	CodeCalendarSunday Code = "calendar_sunday"
	// CodeCalendarPublicHoliday: the stage is ridden on a public holiday of
	// a country it passes through.
	CodeCalendarPublicHoliday Code = "calendar_public_holiday"
	// CodePacingOverCapacity: the dates leave too few days for the rider's
	// daily hours or the daily cap (raised by the pacing engine).
	CodePacingOverCapacity Code = "pacing_over_capacity"
	// CodeHeadwind: a headwind of 25 km/h or more on at least 60 % of the
	// stages (trip-wide).
	CodeHeadwind Code = "headwind"
	// CodeWeatherComfortLow: a stage's weather comfort index is 39 or less.
	CodeWeatherComfortLow Code = "weather_comfort_low"
)

// TripWide is the StageIndex of an alert about the whole trip rather than one
// stage (the headwind rule).
const TripWide = -1

// ActionKind names what a frontend or agent can do to resolve an alert.
type ActionKind string

// The actions the geometry rules suggest.
const (
	// ActionSplitStage: split the stage at Action.AtKm from its start.
	ActionSplitStage ActionKind = "split_stage"
	// ActionSetDepartureHour: change the trip's departureHour to
	// Action.DepartureHour.
	ActionSetDepartureHour ActionKind = "set_departure_hour"
	// ActionInsertRestDay: insert a rest day after the alert's stage.
	ActionInsertRestDay ActionKind = "insert_rest_day"
)

// Action is a concrete, machine-applicable fix attached to an alert, so an
// agent can resolve it with one command instead of parsing the message.
// Only the field matching Kind is meaningful.
type Action struct {
	Kind ActionKind
	// AtKm is where to split, in km from the stage start (ActionSplitStage).
	AtKm float64
	// DepartureHour is the suggested hour, 0–23 (ActionSetDepartureHour).
	DepartureHour int
}

// Alert is one finding of the rule engine about a stage (or the whole trip
// when StageIndex is TripWide).
type Alert struct {
	Code     Code
	Severity Severity
	// Message is a human-readable English sentence with the numbers.
	Message string
	// StageIndex is the 0-based index of the stage the alert is about, or
	// TripWide.
	StageIndex int
	// HasPoint says whether Lat/Lon locate the problem on the map.
	HasPoint bool
	Lat, Lon float64
	// Value is the measured quantity that triggered the rule, so clients can
	// render it without parsing Message: metres for continuity gaps, metres of
	// D+ for elevation_gain, riding hours for stage_over_capacity, the run
	// of riding days for rest_day_suggested, mean gradient in % for steep_gradient, km for
	// ebike_range_exceeded, local arrival hour for the sunset rule, the
	// comfort index, or the share of headwind stages (0–1). Zero otherwise.
	Value float64
	// Action is the suggested fix, or nil.
	Action *Action
	// Metrics are further named figures with their unit in the key (a gap's
	// "from_km" and "to_km"), beside Value; nil when there are none.
	Metrics map[string]float64
}
