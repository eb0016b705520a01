package pacing

import (
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

func TestFromTours(t *testing.T) {
	t.Parallel()

	t.Run("makes one unpaced stage per tour, indexed into the concatenated points", func(t *testing.T) {
		t.Parallel()
		a := randomRoute(21, 4000, 40, true) // ≈ 160 km: more than a day's cap, not re-paced
		b := randomRoute(22, 600, 40, true)
		stages := FromTours([][]route.Point{a, {{Lat: 1, Lon: 1}}, b})
		require.Len(t, stages, 2)

		require.Equal(t, 0, stages[0].Index)
		require.Equal(t, 0, stages[0].RawFrom)
		require.Equal(t, len(a)-1, stages[0].RawTo)
		require.InDelta(t, route.Length(route.Simplify(a, route.DecimationToleranceM)), stages[0].DistanceM, 1e-6)
		gain, loss := route.Elevation(a)
		require.Equal(t, gain, stages[0].AscentM)
		require.Equal(t, loss, stages[0].DescentM)
		require.Equal(t, a[0], stages[0].Start)
		require.Equal(t, a[len(a)-1], stages[0].End)

		require.Equal(t, 1, stages[1].Index)
		require.Equal(t, len(a)+1, stages[1].RawFrom) // the one-point tour still counts
		require.Equal(t, len(a)+len(b), stages[1].RawTo)
		require.Equal(t, b[len(b)-1], stages[1].End)
	})

	t.Run("a collection of no usable tour gives no stage", func(t *testing.T) {
		t.Parallel()
		require.Empty(t, FromTours([][]route.Point{nil, {{Lat: 1, Lon: 1}}}))
	})
}
