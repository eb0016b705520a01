package alert

import (
	"fmt"

	"github.com/roadbook/roadbook/domain/pacing"
)

// restDays nudges towards a rest day where the fatigue model says the rider
// needs one (docs/design/PACING.md "The alerts agree with the planner"):
// after the riding day on which their days have shrunk to the floor
// (pacing.DaysToFloor riding days in a row), or, when the rider planned a
// rhythm (restDayEvery), after a run longer than that rhythm. Never when the trip ends there or a rest day
// already follows, never without fatigue (fatigueFactor 1) and no rhythm.
// The count restarts after each suggestion and after each rest day.
func restDays(stages []Stage, set Settings) []Alert {
	every := pacing.DaysToFloor(set.FatigueFactor)
	why := fmt.Sprintf("by then your days are down to %.0f %% of a fresh day (fatigue factor %g); a rest day restores them, or set restDayEvery to plan them", pacing.FatigueFloor*100, set.FatigueFactor)
	if set.RestDayEvery > 0 {
		every = set.RestDayEvery + 1
		why = fmt.Sprintf("longer than the %d-day rhythm you planned", set.RestDayEvery)
	}
	if every == 0 {
		return nil
	}
	var out []Alert
	run := 0
	for i, s := range stages {
		if s.RestDay {
			run = 0
			continue
		}
		run++
		if run < every {
			continue
		}
		run = 0
		if i == len(stages)-1 || stages[i+1].RestDay {
			continue
		}
		out = append(out, Alert{
			Code:       CodeRestDaySuggested,
			Severity:   SeverityNudge,
			StageIndex: s.Index,
			Message:    fmt.Sprintf("Stage %d ends %d riding days in a row, %s; consider a rest day after it.", s.Index+1, every, why),
			HasPoint:   true,
			Lat:        s.End.Lat,
			Lon:        s.End.Lon,
			Value:      float64(every),
			Action:     &Action{Kind: ActionInsertRestDay},
		})
	}
	return out
}
