package alert

import (
	"fmt"

	"github.com/roadbook/roadbook/domain/route"
)

// Steep-gradient thresholds of DOMAIN §5.
const (
	steepGradient = 0.08  // each segment at least 8 %
	steepMinRunM  = 500.0 // the run at least 500 m long
)

// SteepRun is a stretch of consecutive climbing segments each at 8 % or
// more.
type SteepRun struct {
	// From and To index the first and last point of the run in the stage
	// geometry.
	From, To int
	// LengthM is the Vincenty length of the run; RiseM its height gain.
	LengthM, RiseM float64
}

// MeanGradientPct is the run's rise over its length, in percent.
func (r SteepRun) MeanGradientPct() float64 {
	return r.RiseM / r.LengthM * 100
}

// SteepRuns finds every run of consecutive segments each climbing at 8 % or
// more whose total length is at least 500 m. Only climbs count (a loaded
// bike walks up a wall, it rolls down one). A segment without elevation on
// either end, or below 8 %, ends a run; a zero-length segment (a duplicated
// point) neither extends nor ends one, since its gradient is undefined.
func SteepRuns(pts []route.Point) []SteepRun {
	var runs []SteepRun
	var cur SteepRun
	in := false
	flush := func() {
		if in && cur.LengthM >= steepMinRunM {
			runs = append(runs, cur)
		}
		in = false
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		d := route.Vincenty(a, b)
		if d == 0 {
			if in {
				cur.To = i
			}
			continue
		}
		if !a.HasEle || !b.HasEle || (b.Ele-a.Ele)/d < steepGradient {
			flush()
			continue
		}
		if !in {
			cur, in = SteepRun{From: i - 1}, true
		}
		cur.To = i
		cur.LengthM += d
		cur.RiseM += b.Ele - a.Ele
	}
	flush()
	return runs
}

// steepGradients turns each steep run of the stage geometry into one alert
// located at the foot of the climb. The message gives the run's rise and its
// length as such: "a 823 m climb" read as 823 m of climbing where the run
// was 823 m long and rose 180 m.
func steepGradients(s Stage) []Alert {
	if s.RestDay {
		return nil
	}
	var out []Alert
	for _, r := range SteepRuns(s.Points) {
		foot := s.Points[r.From]
		out = append(out, Alert{
			Code:       CodeSteepGradient,
			Severity:   SeverityWarning,
			StageIndex: s.Index,
			Message: fmt.Sprintf("Stage %d has a steep climb: %.0f m up over %.1f km, %.1f %% on average.",
				s.Index+1, r.RiseM, r.LengthM/1000, r.MeanGradientPct()),
			HasPoint: true,
			Lat:      foot.Lat,
			Lon:      foot.Lon,
			Value:    r.MeanGradientPct(),
		})
	}
	return out
}
