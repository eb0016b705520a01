package aggregate_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore/aggregate"
)

func TestLoadFromFoldsToAHeadTheCallerRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a head the cache is at reads nothing, a moved one reads only the events the cache lacks", func(t *testing.T) {
		t.Parallel()
		log := &callLog{Store: newStore(t)}
		store := tailLog{log}
		def := tallyDef(t, 8)
		writer := def
		writer.Cache = nil
		seed(t, log.Store, writer, "f-1", 2)
		_, err := aggregate.Load(ctx, store, def, "f-1")
		require.NoError(t, err)
		info, err := log.Store.Stream(ctx, "f-1")
		require.NoError(t, err)
		log.take()

		l, err := aggregate.LoadFrom(ctx, store, def, info)
		require.NoError(t, err)
		require.Empty(t, log.take(), "the cache is at the head the caller read")
		require.Equal(t, []int64{0, 1}, l.State.Log)
		require.True(t, l.Exists)
		require.Equal(t, info, l.Info)

		_, err = aggregate.Execute(ctx, log.Store, writer, "f-1", appendOne(2), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		info, err = log.Store.Stream(ctx, "f-1")
		require.NoError(t, err)
		l, err = aggregate.LoadFrom(ctx, store, def, info)
		require.NoError(t, err)
		require.Equal(t, []string{"read"}, log.take(), "no second head row")
		require.Equal(t, []int64{0, 1, 2}, l.State.Log)
		require.EqualValues(t, 3, l.StreamVersion)
	})

	t.Run("an uncached stream is folded whole from the head the caller read", func(t *testing.T) {
		t.Parallel()
		log := &callLog{Store: newStore(t)}
		def := tallyDef(t, 8)
		writer := def
		writer.Cache = nil
		seed(t, log.Store, writer, "f-2", 3)
		info, err := log.Store.Stream(ctx, "f-2")
		require.NoError(t, err)
		l, err := aggregate.LoadFrom(ctx, log, def, info)
		require.NoError(t, err)
		require.Equal(t, []string{"read"}, log.take())
		require.Equal(t, []int64{0, 1, 2}, l.State.Log)
		require.Equal(t, 1, def.Cache.Len(), "the fold is cached as Load's is")
	})
}
