package workerserver

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLazy(t *testing.T) {
	t.Parallel()
	t.Run("binds once, on first use", func(t *testing.T) {
		t.Parallel()
		n := 0
		l := lazy[int]{bind: func(context.Context) (int, error) { n++; return 42, nil }}
		for range 3 {
			v, err := l.get(context.Background())
			require.NoError(t, err)
			require.Equal(t, 42, v)
		}
		require.Equal(t, 1, n)
	})
	t.Run("a failed bind is tried again by the next call, not remembered", func(t *testing.T) {
		t.Parallel()
		n := 0
		l := lazy[int]{bind: func(context.Context) (int, error) {
			n++
			if n == 1 {
				return 0, errors.New("jetstream not reachable yet")
			}
			return 7, nil
		}}
		_, err := l.get(context.Background())
		require.Error(t, err)
		v, err := l.get(context.Background())
		require.NoError(t, err)
		require.Equal(t, 7, v)
	})
}
