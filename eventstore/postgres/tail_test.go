package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
)

func TestReadStreamTail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := postgres.New(pgtest.Schema(t))
	t.Cleanup(s.Close)
	for i := range 3 {
		expected := eventstore.Exact(int64(i))
		if i == 0 {
			expected = eventstore.NoStream()
		}
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: "tail-1", Expected: expected, Owner: "ann",
			Events: []eventstore.NewEvent{{Payload: wrapperspb.Int64(int64(i))}}})
		require.NoError(t, err)
	}

	t.Run("answers the head row and the events after a version, as Stream and ReadStream do", func(t *testing.T) {
		t.Parallel()
		info, events, err := s.ReadStreamTail(ctx, "tail-1", 1, 0)
		require.NoError(t, err)
		head, err := s.Stream(ctx, "tail-1")
		require.NoError(t, err)
		require.Equal(t, head, info)
		want, err := s.ReadStream(ctx, "tail-1", 1, 0)
		require.NoError(t, err)
		require.Equal(t, want, events)
		require.Len(t, events, 2)
		require.EqualValues(t, 2, events[0].Version)
	})

	t.Run("stops at the limit and answers no events at the head", func(t *testing.T) {
		t.Parallel()
		_, events, err := s.ReadStreamTail(ctx, "tail-1", 0, 2)
		require.NoError(t, err)
		require.Len(t, events, 2)
		info, events, err := s.ReadStreamTail(ctx, "tail-1", 3, 0)
		require.NoError(t, err)
		require.EqualValues(t, 3, info.Version)
		require.Empty(t, events)
	})

	t.Run("tells a stream that never was from a deleted one", func(t *testing.T) {
		t.Parallel()
		_, _, err := s.ReadStreamTail(ctx, "tail-none", 0, 0)
		require.ErrorIs(t, err, eventstore.ErrNotFound)
		_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "tail-gone", Expected: eventstore.NoStream(), Owner: "ann",
			Events: []eventstore.NewEvent{{Payload: wrapperspb.Int64(1)}}})
		require.NoError(t, err)
		require.NoError(t, s.DeleteStream(ctx, "tail-gone"))
		_, _, err = s.ReadStreamTail(ctx, "tail-gone", 0, 0)
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
	})

	t.Run("refuses a negative version or limit, naming it", func(t *testing.T) {
		t.Parallel()
		_, _, err := s.ReadStreamTail(ctx, "tail-1", -1, 0)
		var invalid *eventstore.InvalidError
		require.ErrorAs(t, err, &invalid)
		require.Equal(t, "after", invalid.Field)
		_, _, err = s.ReadStreamTail(ctx, "tail-1", 0, -1)
		require.ErrorAs(t, err, &invalid)
		require.Equal(t, "limit", invalid.Field)
	})
}
