package alert

import (
	"fmt"
	"math"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// CodeBorderCrossing: the route crosses a national border (carry an ID),
// found offline from the country of each point along the stage (the family
// "borders"), so open borders without any control count too.
const CodeBorderCrossing Code = "border_crossing"

// Border rule thresholds.
const (
	// BorderMergeM: a crossing back into the country just left within this
	// distance is the route running along the border (or the time-zone
	// data's kilometre of slack there), not two crossings: both are
	// dropped.
	BorderMergeM = 1000.0
	// MaxBorderAlerts bounds the crossings reported per stage (the first
	// ones along the route); the last one says how many more there are.
	MaxBorderAlerts = 5
)

// BorderCrossings raises one border_crossing nudge per national border a
// stage crosses, located where the route changes country, with its
// distance into the stage (km) as the value. Stretches at sea (no country)
// do not count: a ferry from one country to another is one crossing. A
// rest day crosses nothing.
func BorderCrossings(s Stage, zones ZoneFinder) ([]Alert, error) {
	if s.RestDay {
		return nil, nil
	}
	runs, err := countriesAlong(s, zones)
	if err != nil {
		return nil, err
	}
	// Drop the sea, then back-and-forth within BorderMergeM.
	var land []countryRun
	for _, r := range runs {
		if r.country != "" && (len(land) == 0 || land[len(land)-1].country != r.country) {
			land = append(land, r)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := 1; i+1 < len(land); i++ {
			if land[i+1].country == land[i-1].country && land[i+1].fromM-land[i].fromM < BorderMergeM {
				land = append(land[:i], land[i+2:]...)
				changed = true
				break
			}
		}
	}
	var out []Alert
	for i := 1; i < len(land) && len(out) < MaxBorderAlerts; i++ {
		from, to := land[i-1].country, land[i].country
		msg := fmt.Sprintf("Border %.1f km into this stage: %s → %s. Carry an ID.", land[i].fromM/1000, countryName(from), countryName(to))
		if len(out) == MaxBorderAlerts-1 && len(land)-1 > MaxBorderAlerts {
			msg += fmt.Sprintf(" %d more further on.", len(land)-1-MaxBorderAlerts)
		}
		out = append(out, Alert{Code: CodeBorderCrossing, Severity: SeverityNudge, StageIndex: s.Index, Message: msg,
			HasPoint: true, Lat: land[i].at.Lat, Lon: land[i].at.Lon, Value: roundTo(land[i].fromM/1000, 1)})
	}
	return out, nil
}

// countryName is a country's English name ("Norway"), or its code when
// unknown.
func countryName(code string) string {
	r, err := language.ParseRegion(code)
	if err != nil {
		return code
	}
	if n := display.English.Regions().Name(r); n != "" {
		return n
	}
	return code
}

func roundTo(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
