package alert

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRestDays(t *testing.T) {
	t.Parallel()
	// pattern: R = riding, x = rest day.
	cases := []struct {
		name    string
		fatigue float64
		every   int
		pattern string
		want    []int // stage indexes nudged
	}{
		// Fatigue 0.9: 1, 0.9, 0.81, then the 0.8 floor on the 4th day.
		{"four riding days and the trip ends: nothing", 0.9, 0, "RRRR", nil},
		{"four riding days then more riding: a nudge after the fourth", 0.9, 0, "RRRRR", []int{3}},
		{"a planned rest day after the fourth day: nothing", 0.9, 0, "RRRRxRR", nil},
		{"every fourth day of a long trip", 0.9, 0, "RRRRRRRRRRRR", []int{3, 7}},
		{"a rest day resets the count", 0.9, 0, "RRxRRRRR", []int{6}},
		// Fatigue 0.85 reaches the floor on the 3rd day, 0.95 on the 6th.
		{"a beginner's fatigue asks for rest sooner", 0.85, 0, "RRRRRRR", []int{2, 5}},
		{"an expert's later", 0.95, 0, "RRRRRRR", []int{5}},
		{"no fatigue, no rhythm: never", 1, 0, "RRRRRRRRRRRRRRR", nil},
		{"a planned rhythm of 5 nudges only a longer run", 0.9, 5, "RRRRRxRRRRRRR", []int{11}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			stages := chain(lyon, len(c.pattern), 60)
			for i, r := range c.pattern {
				stages[i].RestDay = r == 'x'
			}
			set := DefaultSettings()
			set.FatigueFactor, set.RestDayEvery = c.fatigue, c.every
			var got []int
			for _, a := range restDays(stages, set) {
				require.Equal(t, CodeRestDaySuggested, a.Code)
				require.Equal(t, SeverityNudge, a.Severity)
				require.Equal(t, &Action{Kind: ActionInsertRestDay}, a.Action)
				got = append(got, a.StageIndex)
			}
			require.Equal(t, c.want, got)
		})
	}
}
