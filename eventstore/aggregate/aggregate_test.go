package aggregate_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
	"github.com/roadbook/roadbook/eventstore/sqlite"
)

// counter is the smallest aggregate: its events add to a total.
type counter struct {
	ID    eventstore.StreamID
	Total int64
	Seen  int
}

var errTooBig = errors.New("total would pass 100")

func counterDef(snapshots bool) aggregate.Definition[counter] {
	def := aggregate.Definition[counter]{
		Initial: func(info eventstore.StreamInfo) counter { return counter{ID: info.ID} },
		Evolve: func(c counter, e proto.Message) counter {
			c.Total += e.(*wrapperspb.Int64Value).GetValue()
			c.Seen++
			return c
		},
		Summary: func(c counter) *eventstore.Summary {
			return &eventstore.Summary{Title: "counter", Status: "open"}
		},
	}
	if snapshots {
		def.Snapshots = &aggregate.SnapshotCodec[counter]{
			SchemaVersion: 1,
			Every:         5,
			Marshal:       func(c counter) ([]byte, error) { return proto.Marshal(wrapperspb.Int64(c.Total)) },
			Unmarshal: func(b []byte) (counter, error) {
				var v wrapperspb.Int64Value
				err := proto.Unmarshal(b, &v)
				// Seen stays 0: a state from a snapshot must be told apart in the test.
				return counter{Total: v.GetValue()}, err
			},
		}
	}
	return def
}

func add(n int64) aggregate.Rule[counter] {
	return func(l aggregate.Loaded[counter]) ([]proto.Message, error) {
		if l.State.Total+n > 100 {
			return nil, errTooBig
		}
		if n == 0 {
			return nil, nil
		}
		return []proto.Message{wrapperspb.Int64(n)}, nil
	}
}

func newStore(t *testing.T) eventstore.Store {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "events.db"))
	require.NoError(t, err)
	require.NoError(t, s.Migrate(ctx))
	t.Cleanup(s.Close)
	return s
}

func TestExecute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("creates the stream, then appends at the loaded version", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := counterDef(false)
		r, err := aggregate.Execute(ctx, store, def, "c-1", add(3), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		require.EqualValues(t, 1, r.StreamVersion)
		require.EqualValues(t, 3, r.State.Total)
		r, err = aggregate.Execute(ctx, store, def, "c-1", add(4), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		require.EqualValues(t, 2, r.StreamVersion)
		require.EqualValues(t, 7, r.State.Total)

		info, err := store.Stream(ctx, "c-1")
		require.NoError(t, err)
		require.Equal(t, "ann", info.Owner)
		require.Equal(t, "counter", info.Summary.Title)
	})

	t.Run("returns a rule error as is and appends nothing", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := counterDef(false)
		_, err := aggregate.Execute(ctx, store, def, "c-2", add(101), aggregate.Options{Owner: "ann"})
		require.ErrorIs(t, err, errTooBig)
		_, err = store.Stream(ctx, "c-2")
		require.ErrorIs(t, err, eventstore.ErrNotFound)
	})

	t.Run("appends nothing when the decision returns no events", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := counterDef(false)
		_, err := aggregate.Execute(ctx, store, def, "c-3", add(1), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		r, err := aggregate.Execute(ctx, store, def, "c-3", add(0), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		require.Nil(t, r.Events)
		require.EqualValues(t, 1, r.StreamVersion)
	})

	t.Run("retries stream conflicts so that every concurrent command lands once", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := counterDef(false)
		_, err := aggregate.Execute(ctx, store, def, "c-4", add(1), aggregate.Options{Owner: "ann"})
		require.NoError(t, err)
		const writers = 20
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := aggregate.Execute(ctx, store, def, "c-4", add(2), aggregate.Options{Owner: "ann", MaxAttempts: 100})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		l, err := aggregate.Load(ctx, store, def, "c-4")
		require.NoError(t, err)
		require.EqualValues(t, 1+2*writers, l.State.Total)
		require.EqualValues(t, 1+writers, l.StreamVersion)
	})

	t.Run("refuses a replayed derived event id instead of recording it twice", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := counterDef(false)
		id := uuid.NewSHA1(uuid.NameSpaceOID, []byte("job-1"))
		opts := aggregate.Options{Owner: "ann", EventID: func(int) uuid.UUID { return id }}
		_, err := aggregate.Execute(ctx, store, def, "c-5", add(5), opts)
		require.NoError(t, err)
		_, err = aggregate.Execute(ctx, store, def, "c-5", add(5), opts)
		require.ErrorIs(t, err, eventstore.ErrDuplicateEvent)
		l, err := aggregate.Load(ctx, store, def, "c-5")
		require.NoError(t, err)
		require.EqualValues(t, 5, l.State.Total)
	})
}

func TestLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("loads a missing stream as the initial state", func(t *testing.T) {
		t.Parallel()
		l, err := aggregate.Load(ctx, newStore(t), counterDef(false), "nobody")
		require.NoError(t, err)
		require.False(t, l.Exists)
		require.Equal(t, eventstore.StreamID("nobody"), l.State.ID)
		require.Zero(t, l.StreamVersion)
	})

	t.Run("reads a snapshot and folds only the tail after it", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := counterDef(true)
		for range 12 {
			_, err := aggregate.Execute(ctx, store, def, "c-6", add(1), aggregate.Options{Owner: "ann"})
			require.NoError(t, err)
		}
		snap, err := store.LoadSnapshot(ctx, "c-6", 1)
		require.NoError(t, err)
		require.EqualValues(t, 10, snap.Version)

		l, err := aggregate.Load(ctx, store, def, "c-6")
		require.NoError(t, err)
		require.EqualValues(t, 12, l.State.Total)
		require.EqualValues(t, 12, l.StreamVersion)
		require.Equal(t, 2, l.State.Seen, "only the two events after the snapshot are folded")

		full, err := aggregate.Load(ctx, store, counterDef(false), "c-6")
		require.NoError(t, err)
		require.Equal(t, l.State.Total, full.State.Total)
	})

	t.Run("ignores snapshots of another schema version", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		def := counterDef(true)
		for range 6 {
			_, err := aggregate.Execute(ctx, store, def, "c-7", add(1), aggregate.Options{Owner: "ann"})
			require.NoError(t, err)
		}
		def.Snapshots.SchemaVersion = 2
		l, err := aggregate.Load(ctx, store, def, "c-7")
		require.NoError(t, err)
		require.Equal(t, 6, l.State.Seen, "every event is folded again")
	})
}
