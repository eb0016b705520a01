package trip

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/roadbook/roadbook/domain/pacing"
)

// AccommodationType is one of the seven OSM tourism types Roadbook searches
// (DOMAIN §6), spelled as the tag value.
type AccommodationType string

// The seven accommodation types, in DOMAIN §6 order.
const (
	AccommodationHotel         AccommodationType = "hotel"
	AccommodationGuestHouse    AccommodationType = "guest_house"
	AccommodationChalet        AccommodationType = "chalet"
	AccommodationHostel        AccommodationType = "hostel"
	AccommodationAlpineHut     AccommodationType = "alpine_hut"
	AccommodationCampSite      AccommodationType = "camp_site"
	AccommodationWildernessHut AccommodationType = "wilderness_hut"
)

// AllAccommodationTypes is the default search set: every type.
func AllAccommodationTypes() []AccommodationType {
	return []AccommodationType{
		AccommodationHotel, AccommodationGuestHouse, AccommodationChalet, AccommodationHostel,
		AccommodationAlpineHut, AccommodationCampSite, AccommodationWildernessHut,
	}
}

// MaxTitleChars bounds a trip title (DOMAIN §1); titles are third-party text.
const MaxTitleChars = 255

// Engine 1 is the distance-only pacing engine that cut the days of trips
// created before the effort model; EngineCurrent is the effort model
// (docs/design/PACING.md "Existing trips"). A trip's settings name the
// engine they are for, which keeps the settings hash, and so the stages, of
// every engine-1 trip as it was until its rider changes a setting that
// moves the split or asks for a re-pace.
const (
	EngineDistance = 1
	EngineCurrent  = 2
)

// Settings are a trip's pacing and planning settings (docs/design/PACING.md
// "Settings"). Events carry them in full, never as a patch.
type Settings struct {
	// FatigueFactor is the share of the day before each riding day of a
	// block may ride (down to pacing.FatigueFloor), 0.5–1.0.
	FatigueFactor float64
	// ElevationPenaltyM is the metres of climb that cost as much time as
	// one extra flat km, > 0; it calibrates the rider's climbing.
	ElevationPenaltyM float64
	// MaxDistancePerDayKm caps one day's distance, 30–300 km.
	MaxDistancePerDayKm float64
	// AverageSpeedKmH is the flat riding speed, 5–50 km/h; it calibrates
	// the rider's power.
	AverageSpeedKmH float64
	// DailyRidingHours is the riding time of a fresh day, 1–16 h.
	DailyRidingHours float64
	// RestDayEvery plans a rest day after every RestDayEvery riding days;
	// 0 plans none, else 2–30.
	RestDayEvery int
	// Preset is the rider preset the values match (pacing.PresetOf),
	// derived whenever the values change.
	Preset pacing.Preset
	// Engine is the pacing engine the settings are for: EngineDistance
	// for trips from before the effort model that kept their days,
	// EngineCurrent otherwise.
	Engine int
	// DepartureHour is the local hour the rider sets off, 0–23.
	DepartureHour int
	// EbikeMode adds motor assistance on climbs, keeps days within the
	// battery range and turns on the e-bike range rule.
	EbikeMode bool
	// StartDate is the first day; unset when zero.
	StartDate Date
	// EndDate is the last day; unset when zero; after StartDate.
	EndDate Date
	// AccommodationTypes are the types searched for; at least one.
	AccommodationTypes []AccommodationType
}

// DefaultSettings are a new trip's settings: the pacing engine's defaults
// (the intermediate preset, leaving at 8) with every accommodation type.
// Decide fills them in at creation, so no reader ever needs a defaults
// table.
func DefaultSettings() Settings {
	p := pacing.Defaults()
	return Settings{
		FatigueFactor:       p.FatigueFactor,
		ElevationPenaltyM:   p.ElevationPenalty,
		MaxDistancePerDayKm: p.MaxDistancePerDayKm,
		AverageSpeedKmH:     p.AverageSpeedKmh,
		DailyRidingHours:    p.DailyRidingHours,
		RestDayEvery:        p.RestDayEvery,
		Preset:              pacing.PresetOf(p),
		Engine:              EngineCurrent,
		DepartureHour:       p.DepartureHour,
		AccommodationTypes:  AllAccommodationTypes(),
	}
}

// legacyDailyHours is the daily capacity a trip from before the effort
// model is read with: a day of its km cap ridden on the flat at its average
// speed, within 1–16 h — the day its rider meant by those two numbers.
func legacyDailyHours(s Settings) float64 {
	return math.Max(pacing.MinDailyRidingHours, math.Min(pacing.MaxDailyRidingHours, math.Round(s.MaxDistancePerDayKm/s.AverageSpeedKmH*10)/10))
}

// Validate checks every rule of DOMAIN §1 and names the first field that
// breaks one, in the API's spelling.
func (s Settings) Validate() error {
	switch {
	case !(s.FatigueFactor >= 0.5 && s.FatigueFactor <= 1.0):
		return invalid("fatigueFactor", "must be between 0.5 and 1.0")
	case !(s.ElevationPenaltyM > 0) || math.IsInf(s.ElevationPenaltyM, 1):
		return invalid("elevationPenalty", "must be greater than 0 (metres of climb worth 1 km)")
	case !(s.MaxDistancePerDayKm >= 30 && s.MaxDistancePerDayKm <= 300):
		return invalid("maxDistancePerDay", "must be between 30 and 300 km")
	case !(s.AverageSpeedKmH >= 5 && s.AverageSpeedKmH <= 50):
		return invalid("averageSpeed", "must be between 5 and 50 km/h")
	case !(s.DailyRidingHours >= pacing.MinDailyRidingHours && s.DailyRidingHours <= pacing.MaxDailyRidingHours):
		return invalid("dailyRidingHours", "must be between 1 and 16 hours of riding")
	case s.RestDayEvery != 0 && (s.RestDayEvery < pacing.MinRestDayEvery || s.RestDayEvery > pacing.MaxRestDayEvery):
		return invalid("restDayEvery", "must be 0 (no planned rest days) or 2 to 30 riding days")
	case s.DepartureHour < 0 || s.DepartureHour > 23:
		return invalid("departureHour", "must be an hour between 0 and 23")
	case !s.StartDate.IsZero() && !s.EndDate.IsZero() && !s.StartDate.Before(s.EndDate):
		return invalid("endDate", "must be after startDate")
	case len(s.AccommodationTypes) == 0:
		return invalid("enabledAccommodationTypes", "must name at least one accommodation type")
	}
	seen := map[AccommodationType]bool{}
	for _, t := range s.AccommodationTypes {
		if !slices.Contains(AllAccommodationTypes(), t) {
			return invalid("enabledAccommodationTypes", "holds an unknown accommodation type")
		}
		if seen[t] {
			return invalid("enabledAccommodationTypes", "holds a type twice")
		}
		seen[t] = true
	}
	return nil
}

// DaysFromDates is N = endDate − startDate + 1 when both dates are set, else
// 0 (the pacing engine then derives N from the distance).
func (s Settings) DaysFromDates() int {
	if s.StartDate.IsZero() || s.EndDate.IsZero() {
		return 0
	}
	return s.StartDate.DaysUntil(s.EndDate) + 1
}

// PacingHash is the hex SHA-256 of the settings that shape stages under the
// settings' engine. It is the second half of every stages result's key; a
// change re-paces the trip, while moving both dates by the same amount only
// re-dates it. Engine 1's hash (fatigue, penalty, cap, days) is kept byte
// for byte, so folding an old trip's events gives the key its stages were
// computed for and nothing is re-cut behind its rider's back; the current
// engine's adds what moves its split (flat speed, daily hours, rest-day
// rhythm, e-bike mode).
func (s Settings) PacingHash() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if s.Engine <= EngineDistance {
		h := sha256.Sum256(fmt.Appendf(nil, "pacing/v1|fatigue=%s|penalty=%s|max=%s|days=%d",
			f(s.FatigueFactor), f(s.ElevationPenaltyM), f(s.MaxDistancePerDayKm), s.DaysFromDates()))
		return hex.EncodeToString(h[:])
	}
	h := sha256.Sum256(fmt.Appendf(nil, "pacing/v2|fatigue=%s|penalty=%s|max=%s|speed=%s|hours=%s|rest=%d|ebike=%t|days=%d",
		f(s.FatigueFactor), f(s.ElevationPenaltyM), f(s.MaxDistancePerDayKm), f(s.AverageSpeedKmH),
		f(s.DailyRidingHours), s.RestDayEvery, s.EbikeMode, s.DaysFromDates()))
	return hex.EncodeToString(h[:])
}

// splitChanges says whether going from a to b changes anything the current
// engine's split depends on.
func splitChanges(a, b Settings) bool {
	a.Engine, b.Engine = EngineCurrent, EngineCurrent
	return a.PacingHash() != b.PacingHash()
}

// clone copies the slice so states never share a backing array.
func (s Settings) clone() Settings {
	s.AccommodationTypes = slices.Clone(s.AccommodationTypes)
	return s
}

// SettingsPatch is a settings change: nil fields are left as they are. A
// date pointer to the zero Date clears that date.
type SettingsPatch struct {
	// Preset, when set to a preset with values, sets them first; the
	// other fields then override them.
	Preset              *pacing.Preset
	FatigueFactor       *float64
	ElevationPenaltyM   *float64
	MaxDistancePerDayKm *float64
	AverageSpeedKmH     *float64
	DailyRidingHours    *float64
	RestDayEvery        *int
	DepartureHour       *int
	EbikeMode           *bool
	StartDate           *Date
	EndDate             *Date
	AccommodationTypes  []AccommodationType // nil: unchanged
}

// Apply returns s with the patch applied (not validated), its preset named
// again from its values.
func (p SettingsPatch) Apply(s Settings) Settings {
	s = s.clone()
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	if p.Preset != nil {
		ps := p.Preset.Apply(s.Pacing())
		s.FatigueFactor, s.ElevationPenaltyM, s.MaxDistancePerDayKm = ps.FatigueFactor, ps.ElevationPenalty, ps.MaxDistancePerDayKm
		s.AverageSpeedKmH, s.DailyRidingHours, s.RestDayEvery = ps.AverageSpeedKmh, ps.DailyRidingHours, ps.RestDayEvery
	}
	set(&s.FatigueFactor, p.FatigueFactor)
	set(&s.ElevationPenaltyM, p.ElevationPenaltyM)
	set(&s.MaxDistancePerDayKm, p.MaxDistancePerDayKm)
	set(&s.AverageSpeedKmH, p.AverageSpeedKmH)
	set(&s.DailyRidingHours, p.DailyRidingHours)
	if p.RestDayEvery != nil {
		s.RestDayEvery = *p.RestDayEvery
	}
	if p.DepartureHour != nil {
		s.DepartureHour = *p.DepartureHour
	}
	if p.EbikeMode != nil {
		s.EbikeMode = *p.EbikeMode
	}
	if p.StartDate != nil {
		s.StartDate = *p.StartDate
	}
	if p.EndDate != nil {
		s.EndDate = *p.EndDate
	}
	if p.AccommodationTypes != nil {
		s.AccommodationTypes = slices.Clone(p.AccommodationTypes)
	}
	s.Preset = pacing.PresetOf(s.Pacing())
	return s
}

// validateTitle checks a title's length in characters.
func validateTitle(title string) error {
	if !utf8.ValidString(title) {
		return invalid("title", "must be UTF-8 text")
	}
	if utf8.RuneCountInString(title) > MaxTitleChars {
		return invalid("title", "must be at most %d characters", MaxTitleChars)
	}
	return nil
}
