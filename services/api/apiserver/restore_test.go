package apiserver_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

func TestRestoreStageLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)

	t.Run("undo and redo of a cut, previewed first, replayed by key, refused for a later version", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "undoer", nil)
		d := h.readyTrip(t, c)
		cut, err := c.edits.UpdateStage(ctx, connect.NewRequest(&roadbookv1.UpdateStageRequest{TripId: d.TripId, Version: d.Version, StageIndex: 0,
			Change: &roadbookv1.UpdateStageRequest_DistanceKm{DistanceKm: 50}}))
		require.NoError(t, err)
		require.InDelta(t, 50000, cut.Msg.Trip.Stages[0].DistanceM, 500)

		undo := &roadbookv1.RestoreStageLayoutRequest{TripId: d.TripId, Version: cut.Msg.Version, LayoutVersion: d.Version, ValidateOnly: true}
		before := h.streamVersion(t, d.TripId)
		prev, err := c.edits.RestoreStageLayout(ctx, connect.NewRequest(undo))
		require.NoError(t, err)
		require.True(t, prev.Msg.VersionUnchanged)
		require.Nil(t, prev.Msg.Trip)
		require.EqualValues(t, len(d.Stages), prev.Msg.Impact.GetStageCountAfter())
		require.EqualValues(t, len(cut.Msg.Trip.Stages), prev.Msg.Impact.GetStageCountBefore())
		require.Equal(t, before, h.streamVersion(t, d.TripId), "a preview writes nothing")

		undo.ValidateOnly = false
		key := "undo-cut-0001"
		undo.IdempotencyKey = &key
		back, err := c.edits.RestoreStageLayout(ctx, connect.NewRequest(undo))
		require.NoError(t, err)
		require.Equal(t, cut.Msg.Version+1, back.Msg.Version, "the undo is a new version")
		require.False(t, back.Msg.VersionUnchanged)
		for i, st := range d.Stages {
			require.InDelta(t, st.DistanceM, back.Msg.Trip.Stages[i].DistanceM, 1e-6, "day %d is as it was", i+1)
		}
		again, err := c.edits.RestoreStageLayout(ctx, connect.NewRequest(undo))
		require.NoError(t, err)
		require.Equal(t, back.Msg.Version, again.Msg.Version, "a replay with the same key answers the first answer")
		require.Equal(t, back.Msg.Version, h.getTrip(t, c, d.TripId).Version, "and writes nothing")

		redo, err := c.edits.RestoreStageLayout(ctx, connect.NewRequest(&roadbookv1.RestoreStageLayoutRequest{
			TripId: d.TripId, Version: back.Msg.Version, LayoutVersion: cut.Msg.Version}))
		require.NoError(t, err)
		require.Equal(t, back.Msg.Version+1, redo.Msg.Version)
		require.InDelta(t, 50000, redo.Msg.Trip.Stages[0].DistanceM, 500, "redo puts the cut back")

		same, err := c.edits.RestoreStageLayout(ctx, connect.NewRequest(&roadbookv1.RestoreStageLayoutRequest{
			TripId: d.TripId, Version: redo.Msg.Version, LayoutVersion: cut.Msg.Version}))
		require.NoError(t, err)
		require.True(t, same.Msg.VersionUnchanged, "restoring the layout the trip has changes nothing")
		require.Equal(t, redo.Msg.Version, same.Msg.Version)

		_, err = c.edits.RestoreStageLayout(ctx, connect.NewRequest(&roadbookv1.RestoreStageLayoutRequest{
			TripId: d.TripId, Version: redo.Msg.Version, LayoutVersion: redo.Msg.Version + 1}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err), "a layout version not earlier than the version: %v", err)

		_, err = c.edits.RestoreStageLayout(ctx, connect.NewRequest(&roadbookv1.RestoreStageLayoutRequest{
			TripId: d.TripId, Version: cut.Msg.Version, LayoutVersion: d.Version}))
		require.Equal(t, connect.CodeAborted, connect.CodeOf(err), "a stale version")
	})

	t.Run("the impact of an undo counts no waypoint lost: they move to the nearest day", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "waypointer", nil)
		d := h.readyTrip(t, c)
		cut, err := c.edits.UpdateStage(ctx, connect.NewRequest(&roadbookv1.UpdateStageRequest{TripId: d.TripId, Version: d.Version, StageIndex: 0,
			Change: &roadbookv1.UpdateStageRequest_DistanceKm{DistanceKm: 30}}))
		require.NoError(t, err)
		st, err := c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: d.TripId, StageIndex: 1}))
		require.NoError(t, err)
		_, err = c.edits.AddWaypoint(ctx, connect.NewRequest(&roadbookv1.AddWaypointRequest{TripId: d.TripId, Version: cut.Msg.Version,
			StageIndex: 1, Name: "Spring", Category: "water", Location: st.Msg.Stage.Start}))
		require.NoError(t, err)
		prev, err := c.edits.RestoreStageLayout(ctx, connect.NewRequest(&roadbookv1.RestoreStageLayoutRequest{
			TripId: d.TripId, Version: cut.Msg.Version, LayoutVersion: d.Version, ValidateOnly: true}))
		require.NoError(t, err)
		require.Zero(t, prev.Msg.Impact.GetWaypointsLost(), "%v", prev.Msg.Impact.GetSummary())
		back, err := c.edits.RestoreStageLayout(ctx, connect.NewRequest(&roadbookv1.RestoreStageLayoutRequest{
			TripId: d.TripId, Version: cut.Msg.Version, LayoutVersion: d.Version}))
		require.NoError(t, err)
		n := 0
		for i := range back.Msg.Trip.Stages {
			s, err := c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: d.TripId, StageIndex: uint32(i)}))
			require.NoError(t, err)
			n += len(s.Msg.Stage.Waypoints)
		}
		require.Equal(t, 1, n, "the waypoint is still on the trip")
	})

	t.Run("another user's trip is not found", func(t *testing.T) {
		t.Parallel()
		d := h.readyTrip(t, h.as(t, "owner", nil))
		_, err := h.as(t, "stranger", nil).edits.RestoreStageLayout(ctx, connect.NewRequest(&roadbookv1.RestoreStageLayoutRequest{
			TripId: d.TripId, Version: d.Version + 1, LayoutVersion: d.Version}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
	})
}
