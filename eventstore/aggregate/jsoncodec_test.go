package aggregate_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
)

// ledger is a state JSON carries back whole.
type ledger struct {
	ID      eventstore.StreamID
	Entries []int64
	ByName  map[string]float64
	Last    *time.Time
	Nested  struct{ Note string }
}

// ledgerRenamed is ledger with one field renamed: the same JSON would
// decode into it with Entries silently empty.
type ledgerRenamed struct {
	ID     eventstore.StreamID
	Items  []int64
	ByName map[string]float64
	Last   *time.Time
	Nested struct{ Note string }
}

func TestJSONSnapshots(t *testing.T) {
	t.Parallel()

	t.Run("a state JSON cannot carry back is refused, naming every field at fault", func(t *testing.T) {
		t.Parallel()
		type hidden struct {
			Shown  int
			hidden int
		}
		type skipped struct {
			Kept    int
			Skipped int `json:"-"`
		}
		type opaque struct{ Any any }
		type callback struct{ F func() }
		type both struct {
			A     chan int
			inner int
		}
		for _, tc := range []struct {
			err  func() error
			want []string
		}{
			{func() error { _, err := aggregate.JSONSnapshots[hidden](10); return err }, []string{"hidden.hidden is unexported"}},
			{func() error { _, err := aggregate.JSONSnapshots[skipped](10); return err }, []string{`skipped.Skipped is tagged json:"-"`}},
			{func() error { _, err := aggregate.JSONSnapshots[opaque](10); return err }, []string{"opaque.Any is a interface"}},
			{func() error { _, err := aggregate.JSONSnapshots[callback](10); return err }, []string{"callback.F is a func"}},
			{func() error { _, err := aggregate.JSONSnapshots[map[[2]int]int](10); return err }, []string{"map key [2]int"}},
			{func() error { _, err := aggregate.JSONSnapshots[both](10); return err }, []string{"both.A is a chan", "both.inner is unexported"}},
		} {
			err := tc.err()
			require.Error(t, err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
		}
		_, err := aggregate.JSONSnapshots[ledger](0)
		require.Error(t, err, "every 0 events")
	})

	t.Run("the schema version follows the state's shape", func(t *testing.T) {
		t.Parallel()
		a, err := aggregate.JSONSnapshots[ledger](10)
		require.NoError(t, err)
		again, err := aggregate.JSONSnapshots[ledger](25)
		require.NoError(t, err)
		renamed, err := aggregate.JSONSnapshots[ledgerRenamed](10)
		require.NoError(t, err)
		require.GreaterOrEqual(t, a.SchemaVersion, 1)
		require.Equal(t, a.SchemaVersion, again.SchemaVersion, "the same shape, the same version")
		require.NotEqual(t, a.SchemaVersion, renamed.SchemaVersion, "a renamed field makes old snapshots invisible")
	})

	t.Run("a load reads the snapshot and folds the tail, and a shorter stream reads none", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		codec, err := aggregate.JSONSnapshots[ledger](4)
		require.NoError(t, err)
		def := aggregate.Definition[ledger]{
			Initial: func(info eventstore.StreamInfo) ledger { return ledger{ID: info.ID, ByName: map[string]float64{}} },
			Evolve: func(l ledger, e proto.Message) ledger {
				v := e.(*wrapperspb.Int64Value).GetValue()
				l.Entries = append(append([]int64(nil), l.Entries...), v)
				l.ByName["sum"] += float64(v)
				at := time.Date(2027, 1, int(v), 0, 0, 0, 0, time.UTC)
				l.Last, l.Nested.Note = &at, "seen"
				return l
			},
			Snapshots: codec,
		}
		store := &snapshotReads{Store: newStore(t)}
		for i := range 6 {
			_, err := aggregate.Execute(ctx, store, def, "l-1", func(aggregate.Loaded[ledger]) ([]proto.Message, error) {
				return []proto.Message{wrapperspb.Int64(int64(i + 1))}, nil
			}, aggregate.Options{Owner: "ann"})
			require.NoError(t, err)
		}
		require.Equal(t, 2, store.reads, "of the six loads (at versions 0..5) only those at 4 and 5 read a snapshot")
		snap, err := store.LoadSnapshot(ctx, "l-1", codec.SchemaVersion)
		require.NoError(t, err)
		require.EqualValues(t, 4, snap.Version)
		fromSnap, err := aggregate.Load(ctx, store, def, "l-1")
		require.NoError(t, err)
		plain := def
		plain.Snapshots = nil
		folded, err := aggregate.Load(ctx, store, plain, "l-1")
		require.NoError(t, err)
		require.Equal(t, folded.State, fromSnap.State, "snapshot + tail = the whole fold")
		require.Equal(t, []int64{1, 2, 3, 4, 5, 6}, fromSnap.State.Entries)
	})
}

// snapshotReads counts LoadSnapshot calls.
type snapshotReads struct {
	eventstore.Store
	reads int
}

func (s *snapshotReads) LoadSnapshot(ctx context.Context, id eventstore.StreamID, v int) (eventstore.Snapshot, error) {
	s.reads++
	return s.Store.LoadSnapshot(ctx, id, v)
}
