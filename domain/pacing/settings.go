package pacing

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Defaults and bounds of the pacing settings (docs/design/PACING.md
// "Settings"). They are exported so the API's validation messages and the MCP
// schema quote the same numbers the engine enforces. The defaults are the
// intermediate preset's (presets.go) plus a departure at 8 h.
const (
	DefaultFatigueFactor    = 0.9
	MinFatigueFactor        = 0.5
	MaxFatigueFactor        = 1.0
	DefaultElevationPenalty = 50.0
	DefaultMaxDistanceKm    = 150.0
	MinMaxDistanceKm        = 30.0
	MaxMaxDistanceKm        = 300.0
	DefaultAverageSpeedKmh  = 18.0
	MinAverageSpeedKmh      = 5.0
	MaxAverageSpeedKmh      = 50.0
	DefaultDepartureHour    = 8
	DefaultDailyRidingHours = 6.0
	MinDailyRidingHours     = 1.0
	MaxDailyRidingHours     = 16.0
	// MaxRestDayEvery bounds restDayEvery (0 = no planned rest days).
	MaxRestDayEvery = 30
	// MinRestDayEvery is the shortest rhythm: a rest day every 2 riding
	// days (a rest day after every day would not be a trip).
	MinRestDayEvery = 2
)

// ErrInvalidSettings is matched (errors.Is) by every *SettingError, so a
// boundary can translate any settings refusal into one "invalid argument"
// answer while still showing which field was wrong.
var ErrInvalidSettings = errors.New("invalid pacing settings")

// SettingError names the one setting that is wrong and why, because a rider
// or an agent must be able to fix the request from the message alone.
type SettingError struct {
	// Field is the setting's name as DOMAIN §1 and the API spell it
	// (e.g. "fatigueFactor").
	Field string
	// Reason says what is wrong, with the accepted range.
	Reason string
}

// Error implements error.
func (e *SettingError) Error() string {
	return fmt.Sprintf("pacing setting %s: %s", e.Field, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidSettings) true for every SettingError.
func (e *SettingError) Is(target error) bool { return target == ErrInvalidSettings }

// Settings are a trip's pacing settings (docs/design/PACING.md "Settings").
// Most of them move the stage split (see SettingsHash); the departure hour
// only feeds the rider time. They travel together and are validated
// together, and the alerts read the same values, so the planner and the
// alerts judge a day by one model.
type Settings struct {
	// FatigueFactor (0.5–1.0) shrinks each riding day after the first of a
	// block (between rest days): day k of a block may take
	// max(FatigueFactor^k, FatigueFloor) of a fresh day's riding time.
	// 1 means no fatigue.
	FatigueFactor float64
	// ElevationPenalty (> 0) is the metres of climbing that cost as much
	// time as one extra flat km: on a 5 % climb the rider rides at
	// AverageSpeed × penalty / (penalty + 50). It calibrates the rider's
	// climbing power in the effort model (model.go).
	ElevationPenalty float64
	// MaxDistancePerDayKm (30–300) is the hard cap no riding day may pass
	// unless the dates leave too few days (pacing_over_capacity).
	MaxDistancePerDayKm float64
	// AverageSpeedKmh (5–50) is the rider's speed on level ground: it
	// calibrates the rider's power in the effort model, so it moves the
	// split and the rider time.
	AverageSpeedKmh float64
	// DailyRidingHours (1–16) is the rider's daily capacity: the riding
	// (moving) time of a fresh day, breaks not included. The number of
	// days follows from the route's modelled riding time and this
	// capacity when no dates are set.
	DailyRidingHours float64
	// RestDayEvery (0, or 2–30) plans a rest day after every RestDayEvery
	// riding days when more riding follows; 0 plans none (the rest-day
	// alert then suggests them). Fatigue resets after each rest day.
	RestDayEvery int
	// DepartureHour (0–23, local) feeds the rider time.
	DepartureHour int
	// EbikeMode adds motor assistance on climbs to the effort model
	// (EbikeAssistW), keeps every day within the battery range
	// (EbikeRangeKm) and turns on the e-bike range alert.
	EbikeMode bool
	// StartDate, when set (non-zero), dates the stages. Only its calendar
	// date in UTC counts.
	StartDate time.Time
	// EndDate, when set together with StartDate, fixes the number of days:
	// EndDate − StartDate + 1. It must be after StartDate.
	EndDate time.Time
	// RestDays are 0-based calendar day indexes that are rest days: 0 km,
	// and the fatigue of the next riding day resets. A trip never starts
	// with a rest day and two rest days are never adjacent (DOMAIN §4's
	// rest_day rule), so index 0 and neighbours are refused.
	RestDays []int
}

// Defaults are what a new trip gets before anyone changes a setting: the
// intermediate preset, leaving at 8 h.
func Defaults() Settings {
	s := Settings{DepartureHour: DefaultDepartureHour}
	PresetIntermediate.apply(&s)
	return s
}

// Validate refuses settings outside their ranges with a *SettingError
// naming the first wrong field, so the engine never paces with a value that
// would make the plan meaningless (a zero penalty, a NaN cap).
func (s Settings) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if !inRange(s.FatigueFactor, MinFatigueFactor, MaxFatigueFactor) {
		return bad("fatigueFactor", "%v is outside %v–%v", s.FatigueFactor, MinFatigueFactor, MaxFatigueFactor)
	}
	if math.IsNaN(s.ElevationPenalty) || math.IsInf(s.ElevationPenalty, 0) || s.ElevationPenalty <= 0 {
		return bad("elevationPenalty", "%v must be a finite number of metres > 0", s.ElevationPenalty)
	}
	if !inRange(s.MaxDistancePerDayKm, MinMaxDistanceKm, MaxMaxDistanceKm) {
		return bad("maxDistancePerDay", "%v km is outside %v–%v km", s.MaxDistancePerDayKm, MinMaxDistanceKm, MaxMaxDistanceKm)
	}
	if !inRange(s.AverageSpeedKmh, MinAverageSpeedKmh, MaxAverageSpeedKmh) {
		return bad("averageSpeed", "%v km/h is outside %v–%v km/h", s.AverageSpeedKmh, MinAverageSpeedKmh, MaxAverageSpeedKmh)
	}
	if !inRange(s.DailyRidingHours, MinDailyRidingHours, MaxDailyRidingHours) {
		return bad("dailyRidingHours", "%v h is outside %v–%v h", s.DailyRidingHours, MinDailyRidingHours, MaxDailyRidingHours)
	}
	if s.RestDayEvery != 0 && (s.RestDayEvery < MinRestDayEvery || s.RestDayEvery > MaxRestDayEvery) {
		return bad("restDayEvery", "%d is neither 0 (no planned rest days) nor %d–%d riding days", s.RestDayEvery, MinRestDayEvery, MaxRestDayEvery)
	}
	if s.DepartureHour < 0 || s.DepartureHour > 23 {
		return bad("departureHour", "%d is outside 0–23", s.DepartureHour)
	}
	if !s.EndDate.IsZero() {
		if s.StartDate.IsZero() {
			return bad("endDate", "is set without a startDate")
		}
		if civilDays(s.StartDate, s.EndDate) <= 0 {
			return bad("endDate", "%s is not after startDate %s", dateString(s.EndDate), dateString(s.StartDate))
		}
	}
	rest := slices.Clone(s.RestDays)
	slices.Sort(rest)
	for i, d := range rest {
		switch {
		case d <= 0:
			return bad("restDays", "day index %d: a trip cannot start with a rest day (indexes are 0-based, first rest day ≥ 1)", d)
		case s.hasDates() && d >= s.calendarDays():
			return bad("restDays", "day index %d is past the last day (%d days between the dates)", d, s.calendarDays())
		case i > 0 && rest[i-1] == d:
			return bad("restDays", "day index %d is listed twice", d)
		case i > 0 && rest[i-1] == d-1:
			return bad("restDays", "day indexes %d and %d are adjacent: a rest day cannot follow a rest day", d-1, d)
		}
	}
	return nil
}

// inRange is lo ≤ v ≤ hi, false for NaN.
func inRange(v, lo, hi float64) bool { return v >= lo && v <= hi }

// hasDates says both dates are set, which fixes the number of days.
func (s Settings) hasDates() bool { return !s.StartDate.IsZero() && !s.EndDate.IsZero() }

// calendarDays is EndDate − StartDate + 1 (only meaningful with hasDates).
func (s Settings) calendarDays() int { return civilDays(s.StartDate, s.EndDate) + 1 }

// isRest reports whether calendar day d is a rest day.
func (s Settings) isRest(d int) bool { return slices.Contains(s.RestDays, d) }

// civilDays is the number of calendar days from a to b, by their UTC dates.
func civilDays(a, b time.Time) int {
	return int(math.Round(dateOf(b).Sub(dateOf(a)).Hours() / 24))
}

// dateOf is t's calendar date at UTC midnight.
func dateOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// dateString is t's calendar date as YYYY-MM-DD, or "" when unset.
func dateString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return dateOf(t).Format(time.DateOnly)
}
