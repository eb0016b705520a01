package stack_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

func TestGetStageSaysWhyAFamilyIsUnavailable(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "uma", nil)
	created := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t), "title": "Oslo to Trondheim"}))
	id := created["tripId"].(string)
	h.recordStages(t, id)

	// The analysis worker's final result: geometry ran, the weather could
	// not (the trip has no dates), the OSM families met a provider outage.
	ctx := context.Background()
	tid := uuid.MustParse(id)
	l, err := h.trips.Load(ctx, tripstore.System(), tid)
	require.NoError(t, err)
	a := l.State.Analyses[len(l.State.Analyses)-1]
	var stages []trip.StageAnalysis
	for _, ref := range a.Stages {
		stages = append(stages, trip.StageAnalysis{Stage: ref,
			Families: map[trip.Family]trip.Availability{"geometry": "available", "weather": "unavailable", "traffic": "unavailable"},
			Reasons:  map[trip.Family]string{"weather": "the trip has no dates to forecast", "traffic": "overpass: circuit breaker open"}})
	}
	_, err = h.trips.Execute(ctx, tripstore.System(), tid, trip.RecordAnalysis{AnalysisID: a.ID, Stages: stages, Final: true}, tripstore.Options{})
	require.NoError(t, err)

	st := ok(t, s, "get_stage", fmt.Sprintf(`{"tripId":%q,"stageIndex":0}`, id))
	require.Equal(t, map[string]any{"geometry": "available", "weather": "unavailable", "traffic": "unavailable"}, st["ruleFamilies"])
	require.Equal(t, map[string]any{"weather": "the trip has no dates to forecast", "traffic": "overpass: circuit breaker open"}, st["unavailableBecause"],
		"an agent reads why, to choose between waiting and changing the trip")
}
