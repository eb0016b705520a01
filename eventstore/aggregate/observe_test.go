package aggregate_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
)

// owned is tally with the owner Initial was given, so a test sees whether
// an observed stream began with the right one.
type owned struct {
	Owner string
	Log   []int64
}

func ownedDef(t *testing.T, cached bool) aggregate.Definition[owned] {
	t.Helper()
	def := aggregate.Definition[owned]{
		Initial: func(info eventstore.StreamInfo) owned { return owned{Owner: info.Owner} },
		Evolve: func(s owned, e proto.Message) owned {
			return owned{Owner: s.Owner, Log: append(slices.Clone(s.Log), e.(*wrapperspb.Int64Value).GetValue())}
		},
	}
	if cached {
		cache, err := aggregate.NewStateCache(8, func(s owned) owned { return owned{Owner: s.Owner, Log: slices.Clone(s.Log)} })
		require.NoError(t, err)
		def.Cache = cache
	}
	return def
}

func appendOwned(n ...int64) aggregate.Rule[owned] {
	return func(aggregate.Loaded[owned]) ([]proto.Message, error) {
		out := make([]proto.Message, len(n))
		for i, x := range n {
			out[i] = wrapperspb.Int64(x)
		}
		return out, nil
	}
}

// feedPage reads the whole feed as a relay would, with the owners it is
// told the store named.
func feedPage(t *testing.T, store eventstore.Store, owners map[eventstore.StreamID]string) eventstore.FeedPage {
	t.Helper()
	events, next, err := store.ReadFeed(context.Background(), eventstore.Cursor{}, 100)
	require.NoError(t, err)
	return eventstore.FeedPage{Events: events, Next: next, Owners: owners}
}

func only(id eventstore.StreamID) func(eventstore.StreamID) bool {
	return func(s eventstore.StreamID) bool { return s == id }
}

func TestObserve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a stream begun in the page is cached as a load folds it, owner included, and is used without a read", func(t *testing.T) {
		t.Parallel()
		store := &readCounter{Store: newStore(t)}
		api := ownedDef(t, false) // the writer: another process
		_, err := aggregate.Execute(ctx, store.Store, api, "t-1", appendOwned(7, 8), aggregate.Options{Owner: "ann", Creates: true})
		require.NoError(t, err)

		worker := ownedDef(t, true)
		aggregate.Observe(worker, feedPage(t, store.Store, map[eventstore.StreamID]string{"t-1": "ann"}), only("t-1"))
		got, ok := aggregate.PeekAtLeast(worker, "t-1", 2)
		require.True(t, ok)
		want, err := aggregate.Load(ctx, store.Store, api, "t-1")
		require.NoError(t, err)
		require.Equal(t, want.State, got.State)
		require.Equal(t, int64(2), got.StreamVersion)
		require.Equal(t, "ann", got.Info.Owner)

		res, err := aggregate.Execute(ctx, store, worker, "t-1", appendOwned(9), aggregate.Options{})
		require.NoError(t, err)
		require.Equal(t, []int64{7, 8, 9}, res.State.Log)
		require.Empty(t, store.afters, "the worker decided on what it had relayed, reading nothing")

		l, err := aggregate.Load(ctx, store, worker, "t-1")
		require.NoError(t, err)
		require.Equal(t, owned{Owner: "ann", Log: []int64{7, 8, 9}}, l.State)
		require.Empty(t, store.afters, "a later load finds the cached state right for the stored head (created then, by ann): it folds nothing again")
	})

	t.Run("a stream begun without its owner named is not cached", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		_, err := aggregate.Execute(ctx, store, ownedDef(t, false), "t-1", appendOwned(7), aggregate.Options{Owner: "ann", Creates: true})
		require.NoError(t, err)
		worker := ownedDef(t, true)
		aggregate.Observe(worker, feedPage(t, store, nil), only("t-1"))
		_, ok := aggregate.PeekAtLeast(worker, "t-1", 1)
		require.False(t, ok)
	})

	t.Run("a cached stream moves on with the events after it; a gap, another stream or an older page changes nothing", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		api := ownedDef(t, false)
		worker := ownedDef(t, true)
		_, err := aggregate.Execute(ctx, store, api, "t-1", appendOwned(1, 2), aggregate.Options{Owner: "ann", Creates: true})
		require.NoError(t, err)
		_, err = aggregate.Load(ctx, store, worker, "t-1") // cached at 2
		require.NoError(t, err)
		for _, n := range []int64{3, 4} {
			_, err = aggregate.Execute(ctx, store, api, "t-1", appendOwned(n), aggregate.Options{})
			require.NoError(t, err)
		}
		all := feedPage(t, store, nil)
		require.Len(t, all.Events, 4)

		gap := all
		gap.Events = all.Events[3:] // version 4 alone
		aggregate.Observe(worker, gap, only("t-1"))
		_, ok := aggregate.PeekAtLeast(worker, "t-1", 3)
		require.False(t, ok, "version 3 was never seen: the cache stays at 2")

		aggregate.Observe(worker, all, only("t-2"))
		_, ok = aggregate.PeekAtLeast(worker, "t-1", 3)
		require.False(t, ok, "keep leaves t-1 out")

		aggregate.Observe(worker, all, only("t-1"))
		got, ok := aggregate.PeekAtLeast(worker, "t-1", 4)
		require.True(t, ok)
		require.Equal(t, owned{Owner: "ann", Log: []int64{1, 2, 3, 4}}, got.State)

		aggregate.Observe(worker, all, only("t-1")) // again: nothing is folded twice
		got, ok = aggregate.PeekAtLeast(worker, "t-1", 4)
		require.True(t, ok)
		require.Equal(t, []int64{1, 2, 3, 4}, got.State.Log)
	})

	t.Run("a decision on an observed state the stream has moved past is taken again on what is stored", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		api := ownedDef(t, false)
		worker := ownedDef(t, true)
		_, err := aggregate.Execute(ctx, store, api, "t-1", appendOwned(1), aggregate.Options{Owner: "ann", Creates: true})
		require.NoError(t, err)
		aggregate.Observe(worker, feedPage(t, store, map[eventstore.StreamID]string{"t-1": "ann"}), only("t-1"))
		_, err = aggregate.Execute(ctx, store, api, "t-1", appendOwned(2), aggregate.Options{}) // not relayed yet
		require.NoError(t, err)

		_, ok := aggregate.PeekAtLeast(worker, "t-1", 2)
		require.False(t, ok, "the job set off by version 2 does not decide on version 1")
		res, err := aggregate.Execute(ctx, store, worker, "t-1", appendOwned(3), aggregate.Options{})
		require.NoError(t, err)
		require.Equal(t, []int64{1, 2, 3}, res.State.Log, "the guess at version 1 was refused and the stream decided")
	})
}
