package pacing

import (
	"testing"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/stretchr/testify/require"
)

// climbLine is a straight line heading north from the Alps' foot, stepM
// metres between points, rising by grade on every step.
func climbLine(km, stepM, grade float64) []route.Point {
	n := int(km*1000/stepM) + 1
	pts := make([]route.Point, n)
	for i := range pts {
		d := float64(i) * stepM
		pts[i] = route.Point{Lat: 46 + d/111195, Lon: 8.4, Ele: 500 + grade*d, HasEle: true}
	}
	return pts
}

func TestClimbedM(t *testing.T) {
	t.Parallel()

	t.Run("a steady climb ridden within the rider's power is its rise", func(t *testing.T) {
		t.Parallel()
		m := NewModel(PresetIntermediate.Apply(Defaults()))
		line := climbLine(10, 100, 0.05) // 500 m over 10 km
		require.InDelta(t, 500, m.ClimbedM(line, 500), 5)
	})

	t.Run("a wall the rider walks counts no more than the climbing power lifts in the time it takes", func(t *testing.T) {
		t.Parallel()
		m := NewModel(PresetBeginner.Apply(Defaults()))
		line := climbLine(5, 100, 0.15) // 750 m over 5 km, pushed at walking pace
		got := m.ClimbedM(line, 750)
		require.Less(t, got, 750.0)
		require.InDelta(t, m.RidingSeconds(line)*m.ClimbMetresPerHour()/3600, got, 1)
	})

	t.Run("climbing the line does not show is weighted by what the model charges for it", func(t *testing.T) {
		t.Parallel()
		m := NewModel(PresetBeginner.Apply(Defaults()))
		flat := climbLine(20, 100, 0) // the decimated line of a straight road over bumps
		want := 1000 * m.HiddenClimbSeconds() * m.ClimbMetresPerHour() / 3600
		require.InDelta(t, want, m.ClimbedM(flat, 1000), 1e-6)
		require.Less(t, want, 500.0, "a hidden metre costs the beginner less than half a climbed one")
		// And so a day's riding time holds its ClimbedM at the climbing rate.
		require.GreaterOrEqual(t, m.StageSeconds(flat, 1000)*m.ClimbMetresPerHour()/3600, m.ClimbedM(flat, 1000))
	})

	t.Run("a geometry without elevation takes the counted D+ as it is", func(t *testing.T) {
		t.Parallel()
		m := NewModel(Defaults())
		line := climbLine(20, 100, 0)
		for i := range line {
			line[i].HasEle, line[i].Ele = false, 0
		}
		require.Equal(t, 1234.0, m.ClimbedM(line, 1234))
		require.Equal(t, 1234.0, m.ClimbedM(nil, 1234))
	})

	t.Run("is never more than the counted D+", func(t *testing.T) {
		t.Parallel()
		m := NewModel(Defaults())
		require.Equal(t, 100.0, m.ClimbedM(climbLine(10, 100, 0.05), 100))
	})
}
