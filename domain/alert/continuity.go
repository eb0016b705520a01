package alert

import (
	"fmt"

	"github.com/roadbook/roadbook/domain/route"
)

// Continuity thresholds of DOMAIN §5, in metres (Haversine, a proximity
// measure).
const (
	continuityCriticalM = 500.0
	continuityWarningM  = 100.0
)

// continuityGap checks the gap between the end of prev and the start of next:
// more than 500 m is critical (the rider would have to find their own way),
// more than 100 m a warning. The alert belongs to next and points at its
// start.
func continuityGap(prev, next Stage) (Alert, bool) {
	gap := route.Haversine(prev.End, next.Start)
	var a Alert
	switch {
	case gap > continuityCriticalM:
		a = Alert{Code: CodeContinuityGapCritical, Severity: SeverityCritical}
	case gap > continuityWarningM:
		a = Alert{Code: CodeContinuityGapWarning, Severity: SeverityWarning}
	default:
		return Alert{}, false
	}
	a.StageIndex = next.Index
	a.Message = fmt.Sprintf("Stage %d starts %.0f m away from where stage %d ends.", next.Index+1, gap, prev.Index+1)
	a.HasPoint, a.Lat, a.Lon = true, next.Start.Lat, next.Start.Lon
	a.Value = gap
	return a, true
}
