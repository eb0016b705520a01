package alert

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAvailability(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		a    Availability
		want string
	}{
		{"an evaluated family is valid", Evaluated(FamilyGeometry), ""},
		{"an unavailable family with a reason is valid", Unavailable(FamilyWeather, "weather provider not configured"), ""},
		{"an unavailable family needs a reason", Unavailable(FamilyOSM, "  "), "osm is unavailable without a reason"},
		{"an evaluated family has no reason", Availability{Family: FamilyOSM, Status: StatusEvaluated, Reason: "x"}, "evaluated but has reason"},
		{"an unknown family is refused", Evaluated("traffic"), `unknown rule family "traffic"`},
		{"an unknown status is refused", Availability{Family: FamilyOSM, Status: "maybe"}, `unknown status "maybe"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := c.a.Validate()
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidInput)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestCheckCoverage(t *testing.T) {
	t.Parallel()
	full := []Availability{Evaluated(FamilyGeometry), Unavailable(FamilyOSM, "overpass: circuit open"), Evaluated(FamilyWeather)}
	t.Run("every family reported once passes", func(t *testing.T) {
		t.Parallel()
		require.NoError(t, CheckCoverage(full))
	})
	t.Run("a missing family is named", func(t *testing.T) {
		t.Parallel()
		require.ErrorContains(t, CheckCoverage(full[:2]), "family weather not reported")
	})
	t.Run("a family reported twice is named", func(t *testing.T) {
		t.Parallel()
		require.ErrorContains(t, CheckCoverage(append(full, Evaluated(FamilyOSM))), "family osm reported twice")
	})
}
