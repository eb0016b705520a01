package alert

import "fmt"

// restDayEvery is the number of consecutive riding days after which a rest
// day is suggested (DOMAIN §5).
const restDayEvery = 3

// restDays nudges towards a rest day after every third consecutive riding
// day, except when the trip ends there or a rest day already follows. The
// count restarts after each suggestion and after each rest day.
func restDays(stages []Stage) []Alert {
	var out []Alert
	run := 0
	for i, s := range stages {
		if s.RestDay {
			run = 0
			continue
		}
		run++
		if run < restDayEvery {
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
			Message:    fmt.Sprintf("Stage %d ends %d riding days in a row; consider a rest day after it.", s.Index+1, restDayEvery),
			HasPoint:   true,
			Lat:        s.End.Lat,
			Lon:        s.End.Lon,
			Action:     &Action{Kind: ActionInsertRestDay},
		})
	}
	return out
}
