package tripstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
)

func TestRouteLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pts := []route.Point{{Lat: 59.91, Lon: 10.75}, {Lat: 59.95, Lon: 10.80}, {Lat: 60.00, Lon: 10.82}, {Lat: 60.10, Lon: 10.90}}

	t.Run("a stored route comes back measured, its distances those of route.Measure", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		hash, err := s.PutRoute(ctx, pts)
		require.NoError(t, err)
		l, err := s.RouteLine(ctx, hash)
		require.NoError(t, err)
		require.True(t, l.Measured())
		want := route.Measure(pts)
		require.Len(t, l.Points, len(pts))
		require.InDeltaSlice(t, want.CumM, l.CumM, 1e-6)
		require.InDelta(t, route.MeasuredLength(pts), l.CumM[len(l.CumM)-1], 1e-6)
	})

	t.Run("a second read answers the line measured by the first", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		hash, err := s.PutRoute(ctx, pts)
		require.NoError(t, err)
		first, err := s.RouteLine(ctx, hash)
		require.NoError(t, err)
		again, err := s.RouteLine(ctx, hash)
		require.NoError(t, err)
		require.Same(t, &first.CumM[0], &again.CumM[0], "the cached line, not a new measurement")
	})

	t.Run("a hash with no route is an error, and nothing is cached for it", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		missing := "0000000000000000000000000000000000000000000000000000000000000000"
		_, err := s.RouteLine(ctx, missing)
		require.Error(t, err)
		_, err = s.RouteLine(ctx, missing)
		require.Error(t, err)
	})
}
