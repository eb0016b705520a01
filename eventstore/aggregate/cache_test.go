package aggregate_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
)

// tally is an aggregate with a slice, so a test can try to change a loaded
// state behind the cache's back.
type tally struct{ Log []int64 }

func tallyDef(t *testing.T, max int) aggregate.Definition[tally] {
	t.Helper()
	cache, err := aggregate.NewStateCache(max, func(s tally) tally { return tally{Log: slices.Clone(s.Log)} })
	require.NoError(t, err)
	return aggregate.Definition[tally]{
		Initial: func(eventstore.StreamInfo) tally { return tally{} },
		Evolve: func(s tally, e proto.Message) tally {
			return tally{Log: append(slices.Clone(s.Log), e.(*wrapperspb.Int64Value).GetValue())}
		},
		Cache: cache,
	}
}

func appendOne(n int64) aggregate.Rule[tally] {
	return func(aggregate.Loaded[tally]) ([]proto.Message, error) {
		return []proto.Message{wrapperspb.Int64(n)}, nil
	}
}

// readCounter records the `after` of every ReadStream: where a load started
// folding.
type readCounter struct {
	eventstore.Store
	mu     sync.Mutex
	afters []int64
}

func (r *readCounter) ReadStream(ctx context.Context, id eventstore.StreamID, after int64, limit int) ([]eventstore.RecordedEvent, error) {
	r.mu.Lock()
	r.afters = append(r.afters, after)
	r.mu.Unlock()
	return r.Store.ReadStream(ctx, id, after, limit)
}

// seed appends 0, 1, … n-1 to stream id as "ann", one Execute each.
func seed(t *testing.T, store eventstore.Store, def aggregate.Definition[tally], id eventstore.StreamID, n int) {
	t.Helper()
	for i := range n {
		_, err := aggregate.Execute(context.Background(), store, def, id, appendOne(int64(i)), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
	}
}

func TestStateCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a load folds only what was appended since the cached state, by any writer", func(t *testing.T) {
		t.Parallel()
		store := &readCounter{Store: newStore(t)}
		def := tallyDef(t, 8)
		seed(t, store, def, "t-1", 3)
		// Another replica (no cache of its own here) appends two more.
		other := def
		other.Cache = nil
		for i := 3; i < 5; i++ {
			_, err := aggregate.Execute(ctx, store.Store, other, "t-1", appendOne(int64(i)), aggregate.Options{Owner: "ann"})
			require.NoError(t, err)
		}
		store.afters = nil
		l, err := aggregate.Load(ctx, store, def, "t-1")
		require.NoError(t, err)
		require.Equal(t, []int64{3}, store.afters, "folding started at the cached version 3")
		require.Equal(t, []int64{0, 1, 2, 3, 4}, l.State.Log)
		require.EqualValues(t, 5, l.StreamVersion)

		full, err := aggregate.Load(ctx, store.Store, other, "t-1")
		require.NoError(t, err)
		require.Equal(t, full.State, l.State, "the same state as a fold from the first event")
	})

	t.Run("changing a loaded state does not change what the next load starts from", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := tallyDef(t, 8)
		_, err := aggregate.Execute(ctx, store, def, "t-2", appendOne(7), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		l, err := aggregate.Load(ctx, store, def, "t-2")
		require.NoError(t, err)
		l.State.Log[0] = 999
		again, err := aggregate.Load(ctx, store, def, "t-2")
		require.NoError(t, err)
		require.Equal(t, []int64{7}, again.State.Log)
	})

	t.Run("a deleted stream is deleted, cached or not", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := tallyDef(t, 8)
		_, err := aggregate.Execute(ctx, store, def, "t-3", appendOne(1), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		_, err = aggregate.Load(ctx, store, def, "t-3")
		require.NoError(t, err)
		require.Equal(t, 1, def.Cache.Len())
		require.NoError(t, store.DeleteStream(ctx, "t-3"))
		_, err = aggregate.Load(ctx, store, def, "t-3")
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
		require.Zero(t, def.Cache.Len(), "a deleted stream's state is dropped")
	})

	t.Run("the cache keeps the most recently used streams, at most max", func(t *testing.T) {
		t.Parallel()
		store := &readCounter{Store: newStore(t)}
		def := tallyDef(t, 2)
		for _, id := range []eventstore.StreamID{"a", "b", "c"} {
			_, err := aggregate.Execute(ctx, store, def, id, appendOne(1), aggregate.Options{Owner: "ann"})
			require.NoError(t, err)
			_, err = aggregate.Load(ctx, store, def, id) // a new stream is cached from its first load
			require.NoError(t, err)
		}
		require.Equal(t, 2, def.Cache.Len())
		store.afters = nil
		_, err := aggregate.Load(ctx, store, def, "a")
		require.NoError(t, err)
		require.Equal(t, []int64{0}, store.afters, "a, the least recently used, was evicted: folded from the start")
	})

	t.Run("a cache needs a size and a clone", func(t *testing.T) {
		t.Parallel()
		_, err := aggregate.NewStateCache[tally](0, func(s tally) tally { return s })
		require.Error(t, err)
		_, err = aggregate.NewStateCache[tally](4, nil)
		require.Error(t, err)
	})
}
