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
		pattern string
		want    []int // stage indexes nudged
	}{
		{"three riding days and the trip ends: nothing", "RRR", nil},
		{"three riding days then more riding: a nudge after the third", "RRRR", []int{2}},
		{"a planned rest day after the third day: nothing", "RRRxRR", nil},
		{"every third day of a long trip", "RRRRRRRRRR", []int{2, 5, 8}},
		{"a rest day resets the count", "RRxRRRR", []int{5}},
		{"short blocks between rest days: nothing", "RRxRRxRR", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			stages := chain(lyon, len(c.pattern), 60)
			for i, r := range c.pattern {
				stages[i].RestDay = r == 'x'
			}
			var got []int
			for _, a := range restDays(stages) {
				require.Equal(t, CodeRestDaySuggested, a.Code)
				require.Equal(t, SeverityNudge, a.Severity)
				require.Equal(t, &Action{Kind: ActionInsertRestDay}, a.Action)
				got = append(got, a.StageIndex)
			}
			require.Equal(t, c.want, got)
		})
	}
}
