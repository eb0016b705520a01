package gazetteer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSearchOrder(t *testing.T) {
	t.Parallel()
	g, err := Load()
	require.NoError(t, err)

	t.Run("longer names follow the exact ones, most populous first", func(t *testing.T) {
		t.Parallel()
		got, err := g.Search(context.Background(), "san", 10)
		require.NoError(t, err)
		var pops []uint32
		exactDone := false
		for _, p := range got {
			i := g.lookup(t, p.Name, p.Lat, p.Lon)
			if Fold(g.entries[i].name) == "san" {
				require.False(t, exactDone, "exact matches come first")
				continue
			}
			exactDone = true
			pops = append(pops, g.entries[i].population)
		}
		require.NotEmpty(t, pops)
		for k := 1; k < len(pops); k++ {
			require.GreaterOrEqual(t, pops[k-1], pops[k])
		}
		require.Equal(t, "Santiago", got[len(got)-len(pops)].Name, "the most populous san… is Santiago de Chile")
	})
}

// lookup finds the entry a result came from.
func (g *Gazetteer) lookup(t *testing.T, name string, lat, lon float64) int {
	t.Helper()
	for i, e := range g.entries {
		if e.name == name && e.lat == lat && e.lon == lon {
			return i
		}
	}
	t.Fatalf("no entry %s at %v,%v", name, lat, lon)
	return -1
}
