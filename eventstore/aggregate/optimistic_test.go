package aggregate_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
)

// callLog records which reads and appends reach the store.
type callLog struct {
	eventstore.Store
	mu    sync.Mutex
	calls []string
}

func (c *callLog) log(what string) {
	c.mu.Lock()
	c.calls = append(c.calls, what)
	c.mu.Unlock()
}

func (c *callLog) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = nil
	return out
}

func (c *callLog) Stream(ctx context.Context, id eventstore.StreamID) (eventstore.StreamInfo, error) {
	c.log("head")
	return c.Store.Stream(ctx, id)
}

func (c *callLog) ReadStream(ctx context.Context, id eventstore.StreamID, after int64, limit int) ([]eventstore.RecordedEvent, error) {
	c.log("read")
	return c.Store.ReadStream(ctx, id, after, limit)
}

func (c *callLog) Append(ctx context.Context, req eventstore.AppendRequest) (eventstore.AppendResult, error) {
	c.log("append")
	return c.Store.Append(ctx, req)
}

// tailLog is callLog over a store that reads a head row and a tail in one
// call (eventstore.TailReader), as PostgreSQL does.
type tailLog struct{ *callLog }

func (c tailLog) ReadStreamTail(ctx context.Context, id eventstore.StreamID, after int64, limit int) (eventstore.StreamInfo, []eventstore.RecordedEvent, error) {
	c.log("head+tail")
	info, err := c.Store.Stream(ctx, id)
	if err != nil {
		return info, nil, err
	}
	events, err := c.Store.ReadStream(ctx, id, after, limit)
	return info, events, err
}

// atLeast appends n once the log holds at least min entries, and refuses
// otherwise: a rule whose answer depends on the state it is shown.
func atLeast(min int, n int64) aggregate.Rule[tally] {
	return func(l aggregate.Loaded[tally]) ([]proto.Message, error) {
		if len(l.State.Log) < min {
			return nil, errors.New("too few entries")
		}
		return []proto.Message{wrapperspb.Int64(n)}, nil
	}
}

func TestExecuteDecidesOnWhatItKnows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a stream this process folded last is appended to without reading it first", func(t *testing.T) {
		t.Parallel()
		store := &callLog{Store: newStore(t)}
		def := tallyDef(t, 8)
		seed(t, store, def, "o-1", 2)
		store.take()
		res, err := aggregate.Execute(ctx, store, def, "o-1", appendOne(2), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		require.Equal(t, []string{"append"}, store.take(), "one round trip: the append checks the cached version")
		require.Equal(t, []int64{0, 1, 2}, res.State.Log)
		require.EqualValues(t, 3, res.StreamVersion)
	})

	t.Run("a cached state another writer moved past is loaded again, and the command lands once on the newest", func(t *testing.T) {
		t.Parallel()
		store := &callLog{Store: newStore(t)}
		def := tallyDef(t, 8)
		seed(t, store, def, "o-2", 2)
		other := def
		other.Cache = nil
		_, err := aggregate.Execute(ctx, store.Store, other, "o-2", appendOne(10), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		store.take()
		res, err := aggregate.Execute(ctx, store, def, "o-2", appendOne(2), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		require.Equal(t, []string{"append", "head", "read", "append"}, store.take(), "refused at the cached version, then loaded")
		require.Equal(t, []int64{0, 1, 10, 2}, res.State.Log)
		full, err := aggregate.Load(ctx, store.Store, other, "o-2")
		require.NoError(t, err)
		require.Equal(t, full.State.Log, res.State.Log, "the stream holds exactly what Execute reports")
	})

	t.Run("a rule that refuses the cached state is asked again on the stream as stored", func(t *testing.T) {
		t.Parallel()
		store := &callLog{Store: newStore(t)}
		def := tallyDef(t, 8)
		seed(t, store, def, "o-3", 2)
		other := def
		other.Cache = nil
		_, err := aggregate.Execute(ctx, store.Store, other, "o-3", appendOne(10), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		res, err := aggregate.Execute(ctx, store, def, "o-3", atLeast(3, 5), aggregate.Options{Owner: "ann"})
		require.NoError(t, err, "the cache held two entries, the stream three")
		require.Equal(t, []int64{0, 1, 10, 5}, res.State.Log)
		_, err = aggregate.Execute(ctx, store, def, "o-3", atLeast(9, 5), aggregate.Options{Owner: "ann"})
		require.EqualError(t, err, "too few entries", "a refusal stands when the stream refuses too")
	})

	t.Run("a creation appends without reading, and on a stream that exists decides on what is there", func(t *testing.T) {
		t.Parallel()
		store := &callLog{Store: newStore(t)}
		def := tallyDef(t, 8)
		def.Cache = nil
		_, err := aggregate.Execute(ctx, store, def, "o-4", appendOne(1), aggregate.Options{Owner: "ann", Creates: true})
		require.NoError(t, err)
		require.Equal(t, []string{"append"}, store.take())
		res, err := aggregate.Execute(ctx, store, def, "o-4", appendOne(2), aggregate.Options{Owner: "ann", Creates: true})
		require.NoError(t, err)
		require.Equal(t, []string{"append", "head", "read", "append"}, store.take())
		require.Equal(t, []int64{1, 2}, res.State.Log)
		_, err = aggregate.Execute(ctx, store, def, "o-4", appendOne(3), aggregate.Options{Owner: "bob", Creates: true})
		require.ErrorIs(t, err, eventstore.ErrOwnerMismatch, "another owner's stream is not taken over")
	})

	t.Run("a deleted stream refuses a cached Execute, and its state is dropped", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := tallyDef(t, 8)
		seed(t, store, def, "o-5", 2)
		require.Equal(t, 1, def.Cache.Len())
		require.NoError(t, store.DeleteStream(ctx, "o-5"))
		_, err := aggregate.Execute(ctx, store, def, "o-5", appendOne(2), aggregate.Options{Owner: "ann"})
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
		require.Zero(t, def.Cache.Len())
	})
}

func TestLoadReadsHeadAndTailTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("an uncached stream loads in one call, a cached one reads only its tail", func(t *testing.T) {
		t.Parallel()
		log := &callLog{Store: newStore(t)}
		store := tailLog{log}
		def := tallyDef(t, 8)
		writer := def
		writer.Cache = nil
		seed(t, log.Store, writer, "h-1", 3)
		l, err := aggregate.Load(ctx, store, def, "h-1")
		require.NoError(t, err)
		require.Equal(t, []string{"head+tail"}, log.take())
		require.Equal(t, []int64{0, 1, 2}, l.State.Log)
		_, err = aggregate.Execute(ctx, log.Store, writer, "h-1", appendOne(3), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		l, err = aggregate.Load(ctx, store, def, "h-1")
		require.NoError(t, err)
		require.Equal(t, []string{"head+tail"}, log.take(), "the tail after the cached version came with the head")
		require.Equal(t, []int64{0, 1, 2, 3}, l.State.Log)
		require.EqualValues(t, 4, l.StreamVersion)
	})

	t.Run("a stream longer than a snapshot interval is folded from its snapshot", func(t *testing.T) {
		t.Parallel()
		log := &callLog{Store: newStore(t)}
		store := tailLog{log}
		def := counterDef(true)
		for i := range 12 {
			_, err := aggregate.Execute(ctx, log.Store, def, "h-2", add(1), aggregate.Options{Owner: "ann"})
			require.NoError(t, err, "append %d", i)
		}
		l, err := aggregate.Load(ctx, store, def, "h-2")
		require.NoError(t, err)
		require.EqualValues(t, 12, l.State.Total)
		require.EqualValues(t, 12, l.StreamVersion)
		require.Equal(t, 2, l.State.Seen, "folded the two events after the snapshot at 10, not all twelve")
	})
}
