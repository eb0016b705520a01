package apiserver_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/tripstore"
)

// TestStoreCallsPerRPC pins the event-store calls each RPC of an MCP
// agent's cycle makes (create, get_trip, get_stage, edit, analyze, list,
// delete), by method, on the production store (PostgreSQL): a redundant
// read that comes back changes a count here before it shows in the soak's
// pg_stat_statements. Writes carry idempotency keys, as the MCP service
// sends them. A count that drops for a good reason is lowered here.
func TestStoreCallsPerRPC(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &countingStore{}
	h := newHarness(t, generousLimits, counted(store))
	c := h.as(t, "counter", nil)
	key := func(k string) *string { return &k }

	// each runs one step and checks what it cost the store.
	each := func(t *testing.T, want map[string]int, step func()) {
		t.Helper()
		store.take()
		step()
		got := store.take()
		t.Logf("store calls: %s", callList(got))
		require.Equal(t, want, got)
	}

	var id string
	var version int64
	t.Run("an upload stores the route, appends the trip and records the collection change", func(t *testing.T) {
		each(t, map[string]int{"PutBlob": 1, "Append": 2}, func() {
			resp, err := c.trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
				Filename: "oslo.gpx", ContentType: "application/gpx+xml", Content: fixtures.Read(t, fixtures.OsloTrondheim),
				IdempotencyKey: key("create-key-1")}))
			require.NoError(t, err)
			id = resp.Msg.TripId
		})
	})
	require.NotEmpty(t, id)

	getTrip := func(t *testing.T) {
		got, err := c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: id}))
		require.NoError(t, err)
		stored, err := h.trips.Load(ctx, tripstore.System(), uuid.MustParse(id)) // behind the API's back
		require.NoError(t, err)
		require.Equal(t, stored.State.Version, got.Msg.Trip.Version, "the digest of the trip as stored")
		require.Len(t, got.Msg.Trip.Stages, len(stored.State.Stages))
		version = got.Msg.Trip.Version
	}
	t.Run("the first get_trip loads the trip in one round trip", func(t *testing.T) {
		each(t, map[string]int{"ReadStreamTail": 1}, func() { getTrip(t) })
	})
	h.recordStages(t, id) // the worker, through a store of its own
	t.Run("get_trip after the worker wrote reads the head row and the events it lacks in one round trip", func(t *testing.T) {
		each(t, map[string]int{"ReadStreamTail": 1}, func() { getTrip(t) })
	})
	t.Run("get_trip on an unchanged trip answers from one round trip", func(t *testing.T) {
		each(t, map[string]int{"ReadStreamTail": 1}, func() { getTrip(t) })
	})
	t.Run("get_stage loads the trip once", func(t *testing.T) {
		each(t, map[string]int{"ReadStreamTail": 1}, func() {
			_, err := c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: id, StageIndex: 0}))
			require.NoError(t, err)
		})
	})

	cut := &roadbookv1.UpdateStageRequest{TripId: id, StageIndex: 0, IdempotencyKey: key("cut-key-1"),
		Change: &roadbookv1.UpdateStageRequest_DistanceKm{DistanceKm: 50}}
	t.Run("a keyed stage cut appends once on the cached trip and reads the route once", func(t *testing.T) {
		each(t, map[string]int{"Append": 1, "Blob": 1}, func() {
			cut.Version = version
			resp, err := c.edits.UpdateStage(ctx, connect.NewRequest(cut))
			require.NoError(t, err)
			version = resp.Msg.Version
		})
	})
	t.Run("the cut sent again is refused by the trip, then answered from its idempotency record", func(t *testing.T) {
		each(t, map[string]int{"ReadStreamTail": 1, "LookupIdempotency": 1}, func() {
			resp, err := c.edits.UpdateStage(ctx, connect.NewRequest(cut))
			require.NoError(t, err)
			require.Equal(t, "true", resp.Header().Get(apiserver.ReplayedHeader))
			require.Equal(t, version, resp.Msg.Version)
		})
	})
	t.Run("get_trip after the API's own write answers from one round trip and the cached state", func(t *testing.T) {
		each(t, map[string]int{"ReadStreamTail": 1}, func() { getTrip(t) })
	})
	t.Run("an edit without a key looks no key up", func(t *testing.T) {
		each(t, map[string]int{"Append": 1}, func() {
			resp, err := c.edits.UpdateStage(ctx, connect.NewRequest(&roadbookv1.UpdateStageRequest{TripId: id, Version: version, StageIndex: 0,
				Change: &roadbookv1.UpdateStageRequest_Points{Points: &roadbookv1.StagePoints{EndPoint: &roadbookv1.LatLon{Lat: 60.2, Lon: 10.8}}}}))
			require.NoError(t, err)
			version = resp.Msg.Version
		})
	})
	h.finishAnalyses(t, id) // the worker, through a store of its own
	t.Run("a keyed analysis on a trip the worker moved loads it once and appends", func(t *testing.T) {
		each(t, map[string]int{"ReadStreamTail": 1, "Append": 1}, func() {
			resp, err := c.trips.AnalyzeTrip(ctx, connect.NewRequest(&roadbookv1.AnalyzeTripRequest{TripId: id, Version: version, IdempotencyKey: key("analyze-key-1")}))
			require.NoError(t, err)
			version = resp.Msg.Version
		})
	})
	t.Run("list_trips reads the generation and one page of rows", func(t *testing.T) {
		each(t, map[string]int{"Stream": 1, "ListStreams": 1}, func() {
			resp, err := c.trips.ListTrips(ctx, connect.NewRequest(&roadbookv1.ListTripsRequest{PageSize: 20}))
			require.NoError(t, err)
			require.Len(t, resp.Msg.Trips, 1)
		})
	})
	t.Run("a previewed deletion loads the trip once", func(t *testing.T) {
		each(t, map[string]int{"ReadStreamTail": 1}, func() {
			resp, err := c.trips.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: id, Version: version, ValidateOnly: true}))
			require.NoError(t, err)
			require.False(t, resp.Msg.Deleted)
		})
	})
	t.Run("a keyed deletion appends, records the collection change and removes the stream unread", func(t *testing.T) {
		each(t, map[string]int{"Append": 2, "DeleteStream": 1}, func() {
			resp, err := c.trips.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: id, Version: version, IdempotencyKey: key("delete-key-1")}))
			require.NoError(t, err)
			require.True(t, resp.Msg.Deleted)
		})
	})
	t.Run("get_trip on the deleted trip is not found after its load and the deletion's check (planner.Trip finishes a deletion left half done)", func(t *testing.T) {
		each(t, map[string]int{"ReadStreamTail": 1, "Stream": 1}, func() {
			_, err := c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: id}))
			require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
		})
	})
}

// callList is a count map as one sorted line, for the test log.
func callList(m map[string]int) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s=%d ", k, m[k])
	}
	return strings.TrimSpace(b.String())
}
