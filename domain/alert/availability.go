package alert

import (
	"fmt"
	"strings"
)

// RuleFamily groups the rules by the data they need, so an analysis can say
// which groups ran (DOMAIN §5: never a silent "no alerts" when a provider is
// missing).
type RuleFamily string

// The three families.
const (
	// FamilyGeometry: the offline rules of Evaluate; always evaluable.
	FamilyGeometry RuleFamily = "geometry"
	// FamilyOSM: traffic, surfaces, resupply, water, shops, stations,
	// health, crossings, culture (an Overpass-compatible provider).
	FamilyOSM RuleFamily = "osm"
	// FamilyWeather: headwind and comfort (a forecast provider).
	FamilyWeather RuleFamily = "weather"
)

// RuleFamilies lists the families in report order.
func RuleFamilies() []RuleFamily {
	return []RuleFamily{FamilyGeometry, FamilyOSM, FamilyWeather}
}

// Status says whether a family's rules ran.
type Status string

// The two statuses.
const (
	StatusEvaluated   Status = "evaluated"
	StatusUnavailable Status = "unavailable"
)

// Availability records, for one rule family, whether its rules were
// evaluated or why not, so "no alerts" and "not checked" never look alike.
type Availability struct {
	Family RuleFamily
	Status Status
	// Reason says why the family is unavailable ("weather provider not
	// configured", "overpass: circuit open"); empty when evaluated.
	Reason string
}

// Evaluated records that a family's rules ran.
func Evaluated(f RuleFamily) Availability {
	return Availability{Family: f, Status: StatusEvaluated}
}

// Unavailable records that a family's rules could not run and why.
func Unavailable(f RuleFamily, reason string) Availability {
	return Availability{Family: f, Status: StatusUnavailable, Reason: reason}
}

// Validate rejects a record that would hide the truth: an unknown family or
// status, an unavailable family without a reason, an evaluated one with one.
func (a Availability) Validate() error {
	switch a.Family {
	case FamilyGeometry, FamilyOSM, FamilyWeather:
	default:
		return fmt.Errorf("%w: unknown rule family %q", ErrInvalidInput, a.Family)
	}
	switch a.Status {
	case StatusEvaluated:
		if a.Reason != "" {
			return fmt.Errorf("%w: family %s is evaluated but has reason %q", ErrInvalidInput, a.Family, a.Reason)
		}
	case StatusUnavailable:
		if strings.TrimSpace(a.Reason) == "" {
			return fmt.Errorf("%w: family %s is unavailable without a reason", ErrInvalidInput, a.Family)
		}
	default:
		return fmt.Errorf("%w: family %s has unknown status %q", ErrInvalidInput, a.Family, a.Status)
	}
	return nil
}

// CheckCoverage verifies an analysis reports every family exactly once and
// each record is valid, so the worker cannot forget one.
func CheckCoverage(as []Availability) error {
	seen := map[RuleFamily]bool{}
	for _, a := range as {
		if err := a.Validate(); err != nil {
			return err
		}
		if seen[a.Family] {
			return fmt.Errorf("%w: family %s reported twice", ErrInvalidInput, a.Family)
		}
		seen[a.Family] = true
	}
	for _, f := range RuleFamilies() {
		if !seen[f] {
			return fmt.Errorf("%w: family %s not reported", ErrInvalidInput, f)
		}
	}
	return nil
}
