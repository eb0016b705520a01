package tripstore_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

func TestExecuteSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// ids derives a step's event ids from its name.
	ids := func(step string) func(int) uuid.UUID {
		return func(i int) uuid.UUID { return uuid.NewSHA1(uuid.NameSpaceURL, []byte(step+string(rune('0'+i)))) }
	}

	t.Run("appends every step's events in one append, each step deciding on what the ones before left, with the step's ids", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := uuid.New()
		_, err := s.Execute(ctx, tripstore.User("ann"), id, trip.Create{SourceURL: komootURL, Title: "Alps"}, tripstore.Options{})
		require.NoError(t, err)
		res, err := s.ExecuteSteps(ctx, tripstore.System(), id, []tripstore.Step{
			{Command: trip.RecordRouteImportFailed{Code: trip.ImportSourceUnavailable, Reason: "test"}, EventID: ids("import")},
			{Command: trip.Delete{Version: 1}, EventID: ids("delete")},
		}, tripstore.Options{})
		require.NoError(t, err)
		require.Len(t, res.Events, 2)
		require.Equal(t, res.Append.FirstPosition+1, res.Append.LastPosition, "one append")
		evs, err := s.Events().ReadStream(ctx, tripstore.StreamID(id), 1, 0)
		require.NoError(t, err)
		require.Len(t, evs, 2)
		require.Equal(t, ids("import")(0), evs[0].ID)
		require.Equal(t, ids("delete")(0), evs[1].ID)
	})

	t.Run("refuses the whole when a step is refused on what the ones before left", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := uuid.New()
		_, err := s.Execute(ctx, tripstore.User("ann"), id, trip.Create{SourceURL: komootURL, Title: "Alps"}, tripstore.Options{})
		require.NoError(t, err)
		_, err = s.ExecuteSteps(ctx, tripstore.System(), id, []tripstore.Step{
			{Command: trip.Delete{Version: 1}, EventID: ids("delete")},
			{Command: trip.Delete{Version: 2}, EventID: ids("again")}, // the trip is deleted by the first
		}, tripstore.Options{})
		require.ErrorIs(t, err, trip.ErrNotFound)
		l, err := s.Load(ctx, tripstore.User("ann"), id)
		require.NoError(t, err)
		require.EqualValues(t, 1, l.StreamVersion, "nothing was appended")
	})
}
