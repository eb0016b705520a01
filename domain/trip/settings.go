package trip

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
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

// Settings are a trip's pacing and planning settings (DOMAIN §1). Events
// carry them in full, never as a patch.
type Settings struct {
	// FatigueFactor is the weight decay per consecutive riding day, 0.5–1.0.
	FatigueFactor float64
	// ElevationPenaltyM is the metres of climb worth 1 km of effort, > 0.
	ElevationPenaltyM float64
	// MaxDistancePerDayKm caps one day's distance, 30–300 km.
	MaxDistancePerDayKm float64
	// AverageSpeedKmH is the flat riding speed, 5–50 km/h.
	AverageSpeedKmH float64
	// DepartureHour is the local hour the rider sets off, 0–23.
	DepartureHour int
	// EbikeMode turns on the e-bike range rule.
	EbikeMode bool
	// StartDate is the first day; unset when zero.
	StartDate Date
	// EndDate is the last day; unset when zero; after StartDate.
	EndDate Date
	// AccommodationTypes are the types searched for; at least one.
	AccommodationTypes []AccommodationType
}

// DefaultSettings is DOMAIN §1's defaults column. Decide fills them in at
// creation, so no reader ever needs a defaults table.
func DefaultSettings() Settings {
	return Settings{
		FatigueFactor:       0.9,
		ElevationPenaltyM:   50,
		MaxDistancePerDayKm: 80,
		AverageSpeedKmH:     15,
		DepartureHour:       8,
		AccommodationTypes:  AllAccommodationTypes(),
	}
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

// PacingHash is the hex SHA-256 of the settings that shape stages: fatigue,
// elevation penalty, daily cap and the number of days the dates fix. It is
// the second half of every stages result's key; a change re-paces the trip,
// while moving both dates by the same amount only re-dates it.
func (s Settings) PacingHash() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	h := sha256.Sum256(fmt.Appendf(nil, "pacing/v1|fatigue=%s|penalty=%s|max=%s|days=%d",
		f(s.FatigueFactor), f(s.ElevationPenaltyM), f(s.MaxDistancePerDayKm), s.DaysFromDates()))
	return hex.EncodeToString(h[:])
}

// clone copies the slice so states never share a backing array.
func (s Settings) clone() Settings {
	s.AccommodationTypes = slices.Clone(s.AccommodationTypes)
	return s
}

// SettingsPatch is a settings change: nil fields are left as they are. A
// date pointer to the zero Date clears that date.
type SettingsPatch struct {
	FatigueFactor       *float64
	ElevationPenaltyM   *float64
	MaxDistancePerDayKm *float64
	AverageSpeedKmH     *float64
	DepartureHour       *int
	EbikeMode           *bool
	StartDate           *Date
	EndDate             *Date
	AccommodationTypes  []AccommodationType // nil: unchanged
}

// Apply returns s with the patch applied (not validated).
func (p SettingsPatch) Apply(s Settings) Settings {
	s = s.clone()
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&s.FatigueFactor, p.FatigueFactor)
	set(&s.ElevationPenaltyM, p.ElevationPenaltyM)
	set(&s.MaxDistancePerDayKm, p.MaxDistancePerDayKm)
	set(&s.AverageSpeedKmH, p.AverageSpeedKmH)
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
