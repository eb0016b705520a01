package route

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecimate(t *testing.T) {
	t.Parallel()
	zigzag := make([]Point, 2000)
	for i := range zigzag {
		zigzag[i] = Point{Lat: 60 + float64(i)*0.001, Lon: 10 + float64(i%2)*0.01}
	}
	t.Run("a line within the bound is kept as is", func(t *testing.T) {
		t.Parallel()
		require.Len(t, Decimate(zigzag[:10], 10), 10)
		require.Len(t, Decimate(zigzag, 0), len(zigzag), "no bound")
	})
	t.Run("a longer line is simplified within the bound, keeping both ends", func(t *testing.T) {
		t.Parallel()
		out := Decimate(zigzag, 100)
		require.LessOrEqual(t, len(out), 100)
		require.GreaterOrEqual(t, len(out), 2)
		require.Equal(t, zigzag[0], out[0])
		require.Equal(t, zigzag[len(zigzag)-1], out[len(out)-1])
	})
	t.Run("a straight line collapses to its ends", func(t *testing.T) {
		t.Parallel()
		straight := make([]Point, 1000)
		for i := range straight {
			straight[i] = Point{Lat: 60 + float64(i)*0.001, Lon: 10}
		}
		require.Len(t, Decimate(straight, 50), 2)
	})
}
