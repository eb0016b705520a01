package alert

import (
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestContinuityGap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		gapM     float64
		wantCode Code
		wantSev  Severity
	}{
		{"touching stages are continuous", 0, "", ""},
		{"100 m is still continuous", 99.9, "", ""},
		{"just over 100 m is a warning", 100.5, CodeContinuityGapWarning, SeverityWarning},
		{"500 m is still a warning", 499.5, CodeContinuityGapWarning, SeverityWarning},
		{"just over 500 m is critical", 500.5, CodeContinuityGapCritical, SeverityCritical},
		{"a 12 km jump is critical", 12000, CodeContinuityGapCritical, SeverityCritical},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			prevEnd := north(lyon, 50000)
			prev := riding(0, lyon, prevEnd, 50, 0)
			next := riding(1, north(prevEnd, c.gapM), north(prevEnd, 60000), 10, 0)
			a, ok := continuityGap(prev, next)
			require.Equal(t, c.wantCode != "", ok)
			if !ok {
				return
			}
			require.Equal(t, c.wantCode, a.Code)
			require.Equal(t, c.wantSev, a.Severity)
			require.Equal(t, 1, a.StageIndex)
			require.True(t, a.HasPoint)
			require.Equal(t, next.Start.Lat, a.Lat)
			require.InDelta(t, c.gapM, a.Value, 0.01)
			require.InDelta(t, route.Haversine(prev.End, next.Start), a.Value, 1e-9)
		})
	}
}
