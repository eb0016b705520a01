package apiserver_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/tripstore"
)

func TestAccommodationsProgress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)
	rescan := func(t *testing.T, c clients, d *roadbookv1.TripDigest) {
		t.Helper()
		_, err := c.accs.RescanAccommodations(ctx, connect.NewRequest(&roadbookv1.RescanAccommodationsRequest{TripId: d.TripId, Version: d.Version, RadiusKm: 5}))
		require.NoError(t, err)
	}

	t.Run("a trip where no accommodation search was ever requested has no accommodations part, so nothing waits for one", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "never-searched", nil)
		d := h.readyTrip(t, c)
		h.finishAnalyses(t, d.TripId)
		got := h.getTrip(t, c, d.TripId)
		require.Nil(t, got.Progress.GetAccommodations(), "absent, not pending")
		require.Equal(t, roadbookv1.ComputationState_COMPUTATION_STATE_UNSPECIFIED, got.Progress.GetAccommodations().GetState())
		require.False(t, got.Partial)
	})

	t.Run("a requested search is pending until its result lands, then done even for stages without candidates", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "searcher", nil)
		d := h.readyTrip(t, c)
		rescan(t, c, d)
		p := h.getTrip(t, c, d.TripId).Progress.GetAccommodations()
		require.Equal(t, roadbookv1.ComputationState_COMPUTATION_STATE_PENDING, p.GetState())
		require.Zero(t, p.GetDone())

		h.offerHotel(t, d.TripId) // candidates for stage 0 only
		p = h.getTrip(t, c, d.TripId).Progress.GetAccommodations()
		require.Equal(t, roadbookv1.ComputationState_COMPUTATION_STATE_DONE, p.GetState())
		require.EqualValues(t, 1, p.GetDone())
		require.Greater(t, p.GetTotal(), p.GetDone(), "the other stages have no candidates, and the search is still done")
	})

	t.Run("a search answered without a configured provider is unavailable and says why", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "unconfigured", nil)
		d := h.readyTrip(t, c)
		rescan(t, c, d)
		tid := uuid.MustParse(d.TripId)
		l, err := h.trips.Load(ctx, tripstore.System(), tid)
		require.NoError(t, err)
		found := trip.RecordAccommodationsFound{RadiusM: 5000, Availability: "not_configured"}
		for _, st := range l.State.Stages {
			found.Stages = append(found.Stages, trip.FoundAccommodations{Stage: trip.StageRef{Index: st.Index, ContentHash: st.ContentHash}})
		}
		_, err = h.trips.Execute(ctx, tripstore.System(), tid, found, tripstore.Options{})
		require.NoError(t, err)
		p := h.getTrip(t, c, d.TripId).Progress.GetAccommodations()
		require.Equal(t, roadbookv1.ComputationState_COMPUTATION_STATE_UNAVAILABLE, p.GetState())
		require.Equal(t, "no accommodation provider is configured", p.GetReason())
	})
}
