package apiserver_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

func TestStageEditService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)

	t.Run("insert adds a straight stage at the position and previews without writing", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "inserter", nil)
		d := h.readyTrip(t, c)
		req := &roadbookv1.InsertStageRequest{TripId: d.TripId, Version: d.Version, Position: 1,
			StartPoint: &roadbookv1.LatLon{Lat: 60.0, Lon: 10.0}, EndPoint: &roadbookv1.LatLon{Lat: 60.1, Lon: 10.0}, ValidateOnly: true}
		before := h.streamVersion(t, d.TripId)
		prev, err := c.edits.InsertStage(ctx, connect.NewRequest(req))
		require.NoError(t, err)
		require.True(t, prev.Msg.VersionUnchanged)
		require.EqualValues(t, len(d.Stages)+1, prev.Msg.Impact.GetStageCountAfter())
		require.Nil(t, prev.Msg.Trip)
		require.Equal(t, before, h.streamVersion(t, d.TripId))

		req.ValidateOnly = false
		resp, err := c.edits.InsertStage(ctx, connect.NewRequest(req))
		require.NoError(t, err)
		require.Equal(t, d.Version+1, resp.Msg.Version)
		require.False(t, resp.Msg.VersionUnchanged)
		require.Len(t, resp.Msg.Trip.Stages, len(d.Stages)+1)
		require.InDelta(t, 11130, resp.Msg.Trip.Stages[1].DistanceM, 100, "0.1° of latitude, straight")
		require.InDelta(t, d.Stages[1].DistanceM, resp.Msg.Trip.Stages[2].DistanceM, 1e-6, "the old second day moved on")
	})

	t.Run("update cuts a stage at a distance or redraws it between points", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "updater", nil)
		d := h.readyTrip(t, c)
		cut, err := c.edits.UpdateStage(ctx, connect.NewRequest(&roadbookv1.UpdateStageRequest{TripId: d.TripId, Version: d.Version, StageIndex: 0,
			Change: &roadbookv1.UpdateStageRequest_DistanceKm{DistanceKm: 50}}))
		require.NoError(t, err)
		require.Equal(t, d.Version+1, cut.Msg.Version)
		require.InDelta(t, 50000, cut.Msg.Trip.Stages[0].DistanceM, 500)
		// The cut walks the route's raw points, the paced days were measured
		// on their recorded lines: the two agree to within 1 %.
		two := d.Stages[0].DistanceM + d.Stages[1].DistanceM
		require.InDelta(t, two, cut.Msg.Trip.Stages[0].DistanceM+cut.Msg.Trip.Stages[1].DistanceM, two*0.01, "the next day takes the remainder")
		require.Len(t, cut.Msg.Trip.Stages, len(d.Stages))

		end := &roadbookv1.LatLon{Lat: 60.2, Lon: 10.8}
		moved, err := c.edits.UpdateStage(ctx, connect.NewRequest(&roadbookv1.UpdateStageRequest{TripId: d.TripId, Version: cut.Msg.Version, StageIndex: 0,
			Change: &roadbookv1.UpdateStageRequest_Points{Points: &roadbookv1.StagePoints{EndPoint: end}}}))
		require.NoError(t, err)
		require.Equal(t, cut.Msg.Version+1, moved.Msg.Version)
		st, err := c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: d.TripId, StageIndex: 0}))
		require.NoError(t, err)
		require.InDelta(t, end.Lat, st.Msg.Stage.End.Lat, 1e-9)
		require.True(t, st.Msg.Stage.ManuallyEdited)

		_, err = c.edits.UpdateStage(ctx, connect.NewRequest(&roadbookv1.UpdateStageRequest{TripId: d.TripId, Version: cut.Msg.Version, StageIndex: 0,
			Change: &roadbookv1.UpdateStageRequest_DistanceKm{DistanceKm: 40}}))
		require.Equal(t, connect.CodeAborted, connect.CodeOf(err), "a stale version")
	})

	t.Run("move reorders the days", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "mover", nil)
		d := h.readyTrip(t, c)
		resp, err := c.edits.MoveStage(ctx, connect.NewRequest(&roadbookv1.MoveStageRequest{TripId: d.TripId, Version: d.Version, StageIndex: 0, ToIndex: 2}))
		require.NoError(t, err)
		require.Equal(t, d.Version+1, resp.Msg.Version)
		got := resp.Msg.Trip.Stages
		require.InDelta(t, d.Stages[0].DistanceM, got[2].DistanceM, 1e-6)
		require.InDelta(t, d.Stages[1].DistanceM, got[0].DistanceM, 1e-6)
		require.InDelta(t, d.Stages[2].DistanceM, got[1].DistanceM, 1e-6)

		_, err = c.edits.MoveStage(ctx, connect.NewRequest(&roadbookv1.MoveStageRequest{TripId: d.TripId, Version: resp.Msg.Version, StageIndex: 0, ToIndex: 0}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err), "a move to the same place")
	})

	t.Run("a waypoint lands on its stage and the stage detail lists it", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "pointer", nil)
		d := h.readyTrip(t, c)
		loc := &roadbookv1.LatLon{Lat: 59.95, Lon: 10.75}
		resp, err := c.edits.AddWaypoint(ctx, connect.NewRequest(&roadbookv1.AddWaypointRequest{TripId: d.TripId, Version: d.Version, StageIndex: 0,
			Name: "Bakery", Category: "food", Location: loc}))
		require.NoError(t, err)
		require.Equal(t, "Bakery", resp.Msg.Waypoint.GetName())
		require.NotEmpty(t, resp.Msg.Waypoint.GetWaypointId())
		st, err := c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: d.TripId, StageIndex: 0}))
		require.NoError(t, err)
		require.Len(t, st.Msg.Stage.Waypoints, 1)
		require.Equal(t, resp.Msg.Waypoint.WaypointId, st.Msg.Stage.Waypoints[0].WaypointId)
		require.InDelta(t, loc.Lat, st.Msg.Stage.Waypoints[0].Location.Lat, 1e-9)

		_, err = c.edits.AddWaypoint(ctx, connect.NewRequest(&roadbookv1.AddWaypointRequest{TripId: d.TripId, Version: resp.Msg.Version, StageIndex: 99,
			Name: "Nowhere", Category: "food", Location: loc}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
	})
}
