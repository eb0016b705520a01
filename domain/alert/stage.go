package alert

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
)

// ErrInvalidInput is matched (errors.Is) by every error this package returns
// for input it cannot evaluate; the wrapping message names the field.
var ErrInvalidInput = errors.New("alert: invalid input")

// Stage is the rule engine's own view of one day, so that the trip aggregate
// and the worker can both map to it without this package depending on them.
type Stage struct {
	// Index is the stage's 0-based position in the trip; Evaluate requires
	// stages in order with Index == position.
	Index int
	// Date is the civil date the stage is ridden (only year, month and day
	// are read); the zero Time means the trip has no dates yet, and the
	// date-based rules (sunset, calendar) are skipped.
	Date time.Time
	// Start and End are the first and last points of the stage.
	Start, End route.Point
	// DistanceM, AscentM and DescentM are the stage metrics of DOMAIN §3.
	DistanceM, AscentM, DescentM float64
	// RestDay marks a 0 km rest day.
	RestDay bool
	// Points is the stage geometry (the 20 m decimated line), used by the
	// gradient rule and the rider time; it may be empty, in which case the
	// gradient rule has nothing to check and the rider time falls back on
	// the distance and D+ (pacing.Model.StatsSeconds).
	Points []route.Point
	// Country optionally forces the ISO 3166-1 alpha-2 country used for
	// public holidays; empty means "every country the stage passes
	// through", from the time zone of its points (CountryForZone).
	Country string
}

// Settings are the trip settings the rules read: the pacing engine's own, so
// the planner and the alerts judge a day by one effort model, one daily
// capacity and one fatigue rhythm (docs/design/PACING.md).
type Settings = pacing.Settings

// DefaultSettings returns a new trip's settings, so callers and tests do not
// repeat the numbers.
func DefaultSettings() Settings { return pacing.Defaults() }

// checkSettings refuses settings the engine would refuse, wrapping
// ErrInvalidInput with the engine's message (which names the field).
func checkSettings(s Settings) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	return nil
}

// validate reports a stage whose numbers cannot be evaluated.
func (s Stage) validate(position int) error {
	if s.Index != position {
		return fmt.Errorf("%w: stage at position %d has index %d", ErrInvalidInput, position, s.Index)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"distance", s.DistanceM}, {"ascent", s.AscentM}, {"descent", s.DescentM}} {
		name, v := f.name, f.v
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%w: stage %d %s %v is not a finite non-negative number", ErrInvalidInput, s.Index, name, v)
		}
	}
	for _, f := range []struct {
		name string
		p    route.Point
	}{{"start", s.Start}, {"end", s.End}} {
		name, p := f.name, f.p
		if err := checkPoint(p); err != nil {
			return fmt.Errorf("%w: stage %d %s: %v", ErrInvalidInput, s.Index, name, err)
		}
	}
	return nil
}

// checkPoint reports a coordinate out of WGS-84 range or NaN.
func checkPoint(p route.Point) error {
	if !(p.Lat >= -90 && p.Lat <= 90) {
		return fmt.Errorf("latitude %v outside -90..90", p.Lat)
	}
	if !(p.Lon >= -180 && p.Lon <= 180) {
		return fmt.Errorf("longitude %v outside -180..180", p.Lon)
	}
	return nil
}

// civilDate returns the year, month and day of t as written, ignoring its
// location: a stage date is a calendar day, not an instant.
func civilDate(t time.Time) (int, time.Month, int) {
	return t.Date()
}
