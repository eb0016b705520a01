package apiserver_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// TestEveryStageAtOnce: ListStages and GetRouteGeometry's every_stage
// answer what the one-day reads answer, for every day of one state of the
// trip (the web planner reads a trip's days so; asking day by day, a day an
// agent's edit removed meanwhile is an error).
func TestEveryStageAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)
	c := h.as(t, "every-stage", nil)
	d := h.readyTrip(t, c)
	rest, err := c.edits.AddRestDay(ctx, connect.NewRequest(&roadbookv1.AddRestDayRequest{TripId: d.TripId, Version: d.Version, AfterStageIndex: 0}))
	require.NoError(t, err)
	got, err := c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: d.TripId}))
	require.NoError(t, err)
	trip := got.Msg.Trip
	require.Equal(t, rest.Msg.Version, trip.Version)
	require.True(t, trip.Stages[1].RestDay)

	t.Run("ListStages is every day as GetStage renders it, read at one version", func(t *testing.T) {
		t.Parallel()
		list, err := c.trips.ListStages(ctx, connect.NewRequest(&roadbookv1.ListStagesRequest{TripId: d.TripId}))
		require.NoError(t, err)
		require.Equal(t, trip.Version, list.Msg.Version)
		require.Len(t, list.Msg.Stages, len(trip.Stages))
		for i := range trip.Stages {
			one, err := c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: d.TripId, StageIndex: uint32(i)}))
			require.NoError(t, err)
			require.True(t, proto.Equal(one.Msg.Stage, list.Msg.Stages[i]), "day %d:\nGetStage   %v\nListStages %v", i+1, one.Msg.Stage, list.Msg.Stages[i])
		}
	})

	t.Run("every_stage geometry is each riding day's line as asked one by one, and a rest day's is empty", func(t *testing.T) {
		t.Parallel()
		all, err := c.trips.GetRouteGeometry(ctx, connect.NewRequest(&roadbookv1.GetRouteGeometryRequest{TripId: d.TripId, EveryStage: true, MaxPoints: new(uint32(60))}))
		require.NoError(t, err)
		require.Equal(t, trip.Version, all.Msg.Version)
		require.Nil(t, all.Msg.Geometry, "every stage answers in stages, not in geometry")
		require.Len(t, all.Msg.Stages, len(trip.Stages))
		for i, st := range trip.Stages {
			if st.RestDay {
				require.Zero(t, all.Msg.Stages[i].PointCount, "day %d is a rest day", i+1)
				continue
			}
			one, err := c.trips.GetRouteGeometry(ctx, connect.NewRequest(&roadbookv1.GetRouteGeometryRequest{TripId: d.TripId, StageIndex: new(uint32(i)), MaxPoints: new(uint32(60))}))
			require.NoError(t, err)
			require.True(t, proto.Equal(one.Msg.Geometry, all.Msg.Stages[i]), "day %d", i+1)
			require.Greater(t, all.Msg.Stages[i].PointCount, uint32(1), "day %d has a line", i+1)
			require.LessOrEqual(t, all.Msg.Stages[i].PointCount, uint32(60), "day %d is decimated", i+1)
		}
	})

	t.Run("a trip of another rider is not found", func(t *testing.T) {
		t.Parallel()
		other := h.as(t, "someone-else", nil)
		_, err := other.trips.ListStages(ctx, connect.NewRequest(&roadbookv1.ListStagesRequest{TripId: d.TripId}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err), "%v", err)
	})
}
