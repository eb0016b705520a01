package reconcile_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/reconcile"
)

func TestWaiting(t *testing.T) {
	t.Parallel()
	t.Run("a detour job is never waited for, so a waypoint left estimated is not re-enqueued", func(t *testing.T) {
		t.Parallel()
		wid := uuid.NewString()
		st := trip.State{Exists: true, Stages: []trip.Stage{{Waypoints: []trip.Waypoint{{ID: wid, DetourEstimated: true}}}}}
		require.False(t, reconcile.Waiting(st, job.New(uuid.New(), uuid.New(), job.DetourFor{WaypointIDs: []string{wid}})))
	})
	t.Run("an analysis still requested is waited for", func(t *testing.T) {
		t.Parallel()
		aid := uuid.NewString()
		st := trip.State{Exists: true, Analyses: []trip.Analysis{{ID: aid, ComputationState: trip.ComputationState{Status: trip.ComputationRequested}}}}
		require.True(t, reconcile.Waiting(st, job.New(uuid.New(), uuid.New(), job.AnalysisFor{AnalysisID: aid})))
	})
}
