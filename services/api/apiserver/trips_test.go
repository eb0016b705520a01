package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/tripstore"
)

// generousLimits lifts the per-user limits for tests that create many trips.
func generousLimits(c *apiserver.Config) {
	m := time.Minute
	c.RateLimits = apiserver.RateLimits{Create: apiserver.RateLimit{N: 1000, Window: m}, Upload: apiserver.RateLimit{N: 1000, Window: m},
		Duplicate: apiserver.RateLimit{N: 1000, Window: m}, Recompute: apiserver.RateLimit{N: 1000, Window: m},
		Geocode: apiserver.RateLimit{N: 1000, Window: m}, Public: apiserver.RateLimit{N: 1000, Window: m}}
}

func createURL(t *testing.T, c clients, url, title string, settings *roadbookv1.TripSettingsInput) string {
	t.Helper()
	resp, err := c.trips.CreateTripFromUrl(context.Background(), connect.NewRequest(&roadbookv1.CreateTripFromUrlRequest{
		Url: url, Title: title, Settings: settings}))
	require.NoError(t, err)
	return resp.Msg.TripId
}

func list(t *testing.T, c clients, req *roadbookv1.ListTripsRequest) *roadbookv1.ListTripsResponse {
	t.Helper()
	resp, err := c.trips.ListTrips(context.Background(), connect.NewRequest(req))
	require.NoError(t, err)
	return resp.Msg
}

func ids(trips []*roadbookv1.TripSummary) []string {
	out := make([]string, 0, len(trips))
	for _, s := range trips {
		out = append(out, s.TripId)
	}
	return out
}

func TestTripService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, generousLimits)

	t.Run("list filters by status, source, sharing, title and start date", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "lister", nil)
		ready := h.readyTrip(t, c)
		_, err := c.shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: ready.TripId, Version: ready.Version}))
		require.NoError(t, err)
		alps := createURL(t, c, "https://www.komoot.com/tour/111", "Alps crossing", &roadbookv1.TripSettingsInput{StartDate: new("2030-06-01")})
		coast := createURL(t, c, "https://www.strava.com/routes/222", "Coast ride", &roadbookv1.TripSettingsInput{StartDate: new("2030-07-15")})

		all := list(t, c, &roadbookv1.ListTripsRequest{})
		require.Equal(t, []string{coast, alps, ready.TripId}, ids(all.Trips), "newest first")
		require.False(t, all.Truncated)
		require.Empty(t, all.NextPageToken)

		cases := []struct {
			name string
			req  *roadbookv1.ListTripsRequest
			want []string
		}{
			{"ready", &roadbookv1.ListTripsRequest{Statuses: []roadbookv1.TripStatus{roadbookv1.TripStatus_TRIP_STATUS_READY}}, []string{ready.TripId}},
			{"computing", &roadbookv1.ListTripsRequest{Statuses: []roadbookv1.TripStatus{roadbookv1.TripStatus_TRIP_STATUS_COMPUTING}}, []string{coast, alps}},
			{"strava", &roadbookv1.ListTripsRequest{SourceKinds: []roadbookv1.RouteSourceKind{roadbookv1.RouteSourceKind_ROUTE_SOURCE_KIND_STRAVA_ROUTE}}, []string{coast}},
			{"uploads", &roadbookv1.ListTripsRequest{SourceKinds: []roadbookv1.RouteSourceKind{roadbookv1.RouteSourceKind_ROUTE_SOURCE_KIND_UPLOAD}}, []string{ready.TripId}},
			{"shared", &roadbookv1.ListTripsRequest{Shared: new(true)}, []string{ready.TripId}},
			{"not shared", &roadbookv1.ListTripsRequest{Shared: new(false)}, []string{coast, alps}},
			{"title, any case", &roadbookv1.ListTripsRequest{TitleContains: "ALPS"}, []string{alps}},
			{"starting from July", &roadbookv1.ListTripsRequest{StartDateFrom: "2030-07-01"}, []string{coast}},
			{"starting by June", &roadbookv1.ListTripsRequest{StartDateTo: "2030-06-30"}, []string{alps}},
		}
		for _, tc := range cases {
			got := list(t, c, tc.req)
			require.Equal(t, tc.want, ids(got.Trips), tc.name)
		}
		sum := all.Trips[2]
		require.True(t, sum.Shared)
		require.Greater(t, sum.StageCount, uint32(2))
		require.InDelta(t, 627000, sum.DistanceM, 15000)
	})

	t.Run("list pages with tokens bound to the caller and the filters", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "pager", nil)
		var made []string
		for i := range 5 {
			made = append([]string{createURL(t, c, "https://ridewithgps.com/routes/"+string(rune('1'+i)), "", nil)}, made...)
		}
		var seen []string
		req := &roadbookv1.ListTripsRequest{PageSize: 2}
		var pages int
		for {
			page := list(t, c, req)
			pages++
			seen = append(seen, ids(page.Trips)...)
			if page.NextPageToken == "" {
				require.False(t, page.Truncated)
				break
			}
			require.True(t, page.Truncated)
			require.Len(t, page.Trips, 2)
			req = &roadbookv1.ListTripsRequest{PageSize: 2, PageToken: page.NextPageToken}
		}
		require.Equal(t, 3, pages)
		require.Equal(t, made, seen, "every trip once, newest first")

		first := list(t, c, &roadbookv1.ListTripsRequest{PageSize: 2})
		bad := []struct {
			who clients
			req *roadbookv1.ListTripsRequest
		}{
			{c, &roadbookv1.ListTripsRequest{PageSize: 2, PageToken: first.NextPageToken, TitleContains: "x"}},
			{h.as(t, "thief", nil), &roadbookv1.ListTripsRequest{PageSize: 2, PageToken: first.NextPageToken}},
			{c, &roadbookv1.ListTripsRequest{PageSize: 2, PageToken: "A" + first.NextPageToken}},
		}
		for _, b := range bad {
			_, err := b.who.trips.ListTrips(ctx, connect.NewRequest(b.req))
			require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
			require.Equal(t, "pageToken", errorInfo(t, err).Field)
		}
	})

	t.Run("the generation moves when the set of trips changes and only then", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "generations", nil)
		gen := func() int64 { return list(t, c, &roadbookv1.ListTripsRequest{}).Generation }
		g0 := gen()
		key := "gen-key-0001"
		first, err := c.trips.CreateTripFromUrl(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUrlRequest{
			Url: "https://www.komoot.com/tour/9", IdempotencyKey: &key}))
		require.NoError(t, err)
		g1 := gen()
		require.Greater(t, g1, g0, "a create moves it")
		_, err = c.trips.CreateTripFromUrl(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUrlRequest{
			Url: "https://www.komoot.com/tour/9", IdempotencyKey: &key}))
		require.NoError(t, err)
		require.Equal(t, g1, gen(), "a replayed create does not")

		up := upload(t, c.trips)
		g2 := gen()
		require.Greater(t, g2, g1)
		h.recordStages(t, up.TripId)
		require.Equal(t, g2, gen(), "a trip finishing its computation does not move it")
		d := h.getTrip(t, c, up.TripId)
		_, err = c.trips.UpdateTripSettings(ctx, connect.NewRequest(&roadbookv1.UpdateTripSettingsRequest{TripId: up.TripId, Version: d.Version, Title: new("Renamed"),
			Settings: &roadbookv1.TripSettingsInput{}}))
		require.NoError(t, err)
		require.Equal(t, g2, gen(), "an edit does not move it")

		dup, err := c.trips.DuplicateTrip(ctx, connect.NewRequest(&roadbookv1.DuplicateTripRequest{TripId: up.TripId}))
		require.NoError(t, err)
		g3 := gen()
		require.Greater(t, g3, g2, "a duplicate moves it")
		_, err = c.trips.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: first.Msg.TripId, Version: first.Msg.Version, ValidateOnly: true}))
		require.NoError(t, err)
		require.Equal(t, g3, gen(), "a previewed delete does not")
		_, err = c.trips.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: dup.Msg.TripId, Version: dup.Msg.Version}))
		require.NoError(t, err)
		require.Greater(t, gen(), g3, "a delete moves it")

		// The collection stream is the user's own and not a trip stream, so
		// the relay (trip- streams only) publishes nothing for it.
		page, err := h.store.ListStreams(ctx, eventstore.ListQuery{Owner: "generations", Limit: 50})
		require.NoError(t, err)
		var others []eventstore.StreamInfo
		for _, s := range page.Streams {
			if _, ok := tripstore.TripID(s.ID); !ok {
				others = append(others, s)
			}
		}
		require.Len(t, others, 1)
		require.True(t, strings.HasPrefix(string(others[0].ID), "user-"), others[0].ID)
		require.Equal(t, gen(), others[0].Version)
	})

	t.Run("settings updates move the version and validate_only only previews", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "tuner", nil)
		d := h.readyTrip(t, c)
		before := h.streamVersion(t, d.TripId)
		prev, err := c.trips.UpdateTripSettings(ctx, connect.NewRequest(&roadbookv1.UpdateTripSettingsRequest{TripId: d.TripId, Version: d.Version,
			Settings: &roadbookv1.TripSettingsInput{MaxDistancePerDayKm: new(float64(60))}, ValidateOnly: true}))
		require.NoError(t, err)
		require.True(t, prev.Msg.VersionUnchanged)
		require.True(t, prev.Msg.Impact.StagesRecomputed)
		require.InDelta(t, 60, prev.Msg.Settings.MaxDistancePerDayKm, 1e-9)
		require.Equal(t, before, h.streamVersion(t, d.TripId), "nothing written")

		upd, err := c.trips.UpdateTripSettings(ctx, connect.NewRequest(&roadbookv1.UpdateTripSettingsRequest{TripId: d.TripId, Version: d.Version,
			Settings: &roadbookv1.TripSettingsInput{MaxDistancePerDayKm: new(float64(60)), DepartureHour: new(uint32(7))}}))
		require.NoError(t, err)
		require.Greater(t, upd.Msg.Version, d.Version)
		require.False(t, upd.Msg.VersionUnchanged)
		require.EqualValues(t, 7, upd.Msg.Settings.DepartureHour)
		got := h.getTrip(t, c, d.TripId)
		require.InDelta(t, 60, got.Settings.MaxDistancePerDayKm, 1e-9)
		require.True(t, got.Partial, "stages are being recomputed")

		_, err = c.trips.UpdateTripSettings(ctx, connect.NewRequest(&roadbookv1.UpdateTripSettingsRequest{TripId: d.TripId, Version: d.Version, Title: new("x"),
			Settings: &roadbookv1.TripSettingsInput{}}))
		t.Logf("ready at %d, updated to %d", d.Version, upd.Msg.Version)
		require.Equal(t, connect.CodeAborted, connect.CodeOf(err))
		require.Equal(t, upd.Msg.Version, errorInfo(t, err).GetCurrentVersion())
	})

	t.Run("delete removes the trip and its share index for good and the id is never reused", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "deleter", nil)
		d := h.readyTrip(t, c)
		sh, err := c.shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: d.TripId, Version: d.Version}))
		require.NoError(t, err)
		stream := tripstore.StreamID(uuid.MustParse(d.TripId))

		prev, err := c.trips.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: d.TripId, Version: d.Version, ValidateOnly: true}))
		require.NoError(t, err)
		require.True(t, prev.Msg.Impact.TripDeleted)
		require.NotEmpty(t, prev.Msg.Impact.ShareLinkRevoked)
		require.False(t, prev.Msg.Deleted)
		h.getTrip(t, c, d.TripId)

		del, err := c.trips.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: d.TripId, Version: d.Version}))
		require.NoError(t, err)
		require.True(t, del.Msg.Deleted)

		_, err = c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: d.TripId}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
		_, err = h.store.Stream(ctx, stream)
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
		_, err = h.store.ReadStream(ctx, stream, 0, 0)
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted, "no event of the trip is left")
		_, err = h.store.Stream(ctx, eventstore.StreamID("share-"+sh.Msg.Share.Code))
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted, "the share index naming the trip is gone too")
		_, err = c.public.GetSharedTrip(ctx, connect.NewRequest(&roadbookv1.GetSharedTripRequest{Code: sh.Msg.Share.Code}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
		require.NotContains(t, ids(list(t, c, &roadbookv1.ListTripsRequest{}).Trips), d.TripId)

		// The tombstone: nothing can ever be written under the id again.
		_, err = h.store.Append(ctx, eventstore.AppendRequest{Stream: stream, Expected: eventstore.NoStream(), Owner: "deleter",
			Events: []eventstore.NewEvent{{Payload: wrapperspb.String("x")}}})
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
		_, err = h.trips.Execute(ctx, tripstore.User("deleter"), uuid.MustParse(d.TripId), trip.Create{SourceURL: "https://www.komoot.com/tour/1"}, tripstore.Options{})
		require.ErrorIs(t, err, trip.ErrNotFound)
		_, err = c.trips.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: d.TripId, Version: del.Msg.Version}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err), "a second delete finds nothing")
	})

	t.Run("a failed stream removal leaves the trip deleted and the next read finishes it", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "unlucky", nil)
		// One trip per recovery path: a list page, a retried delete, a read.
		paths := []string{"list", "delete again", "get"}
		made := map[string]string{}
		for _, p := range paths {
			made[p] = createURL(t, c, "https://www.komoot.com/tour/77", p, nil)
		}
		for _, p := range paths {
			id := made[p]
			stream := tripstore.StreamID(uuid.MustParse(id))
			h.faults.failDeleteOf(stream, errInjected)
			resp, err := c.trips.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: id, Version: 1}))
			require.NoError(t, err, "the trip is deleted even though its stream is not removed yet")
			require.True(t, resp.Msg.Deleted)
			info, err := h.store.Stream(ctx, stream)
			require.NoError(t, err, "the stream is still there")
			var row tripstore.SummaryData
			require.NoError(t, json.Unmarshal(info.Summary.Data, &row))
			require.True(t, row.Deleted)
			_, err = c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: id}))
			require.Equal(t, connect.CodeNotFound, connect.CodeOf(err), "reads see it deleted at once")
			require.NotContains(t, ids(list(t, c, &roadbookv1.ListTripsRequest{}).Trips), id, "lists skip it at once")
			_, err = h.store.Stream(ctx, stream)
			require.NoError(t, err, "and the failure still stands while the store fails")
			h.faults.failDeleteOf(stream, nil)
		}

		require.Empty(t, list(t, c, &roadbookv1.ListTripsRequest{}).Trips)
		_, err := h.store.Stream(ctx, tripstore.StreamID(uuid.MustParse(made["list"])))
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted, "a list page finished the removal")

		_, err = c.trips.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: made["delete again"], Version: 2}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
		_, err = h.store.Stream(ctx, tripstore.StreamID(uuid.MustParse(made["delete again"])))
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted, "a retried delete finished the removal")

		_, err = c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: made["get"]}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
		_, err = h.store.Stream(ctx, tripstore.StreamID(uuid.MustParse(made["get"])))
		require.ErrorIs(t, err, eventstore.ErrStreamDeleted, "a read finished the removal")
	})

	t.Run("duplicate copies the stages under a new id and leaves the source alone", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "copier", nil)
		src := h.readyTrip(t, c)
		dup, err := c.trips.DuplicateTrip(ctx, connect.NewRequest(&roadbookv1.DuplicateTripRequest{TripId: src.TripId, Title: "Second go"}))
		require.NoError(t, err)
		require.NotEqual(t, src.TripId, dup.Msg.TripId)
		require.Equal(t, src.TripId, dup.Msg.SourceTripId)
		cp := h.getTrip(t, c, dup.Msg.TripId)
		require.Equal(t, "Second go", cp.Title)
		require.Len(t, cp.Stages, len(src.Stages))
		for i := range cp.Stages {
			require.InDelta(t, src.Stages[i].DistanceM, cp.Stages[i].DistanceM, 1e-6)
		}
		again := h.getTrip(t, c, src.TripId)
		require.Equal(t, src.Version, again.Version)
		require.Equal(t, src.Title, again.Title)

		_, err = h.as(t, "stranger", nil).trips.DuplicateTrip(ctx, connect.NewRequest(&roadbookv1.DuplicateTripRequest{TripId: src.TripId}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err), "nobody copies someone else's trip")
	})

	t.Run("analyze starts one analysis and refuses another while it runs", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "analyst", nil)
		d := h.readyTrip(t, c)
		_, err := c.trips.AnalyzeTrip(ctx, connect.NewRequest(&roadbookv1.AnalyzeTripRequest{TripId: d.TripId, Version: d.Version}))
		require.Equal(t, connect.CodeAlreadyExists, connect.CodeOf(err), "computed stages start an analysis of their own")
		h.finishAnalyses(t, d.TripId)
		require.False(t, h.getTrip(t, c, d.TripId).Partial)
		before := h.streamVersion(t, d.TripId)
		a, err := c.trips.AnalyzeTrip(ctx, connect.NewRequest(&roadbookv1.AnalyzeTripRequest{TripId: d.TripId, Version: d.Version}))
		require.NoError(t, err)
		require.True(t, a.Msg.VersionUnchanged)
		require.Equal(t, d.Version, a.Msg.Version)
		_, err = uuid.Parse(a.Msg.AnalysisId)
		require.NoError(t, err)
		require.Equal(t, "get_trip", a.Msg.Next.GetTool())
		require.Equal(t, before+1, h.streamVersion(t, d.TripId), "AnalysisRequested is recorded")
		got := h.getTrip(t, c, d.TripId)
		require.True(t, got.Partial)
		require.Equal(t, d.Version, got.Version)

		_, err = c.trips.AnalyzeTrip(ctx, connect.NewRequest(&roadbookv1.AnalyzeTripRequest{TripId: d.TripId, Version: d.Version}))
		require.Equal(t, connect.CodeAlreadyExists, connect.CodeOf(err))
		require.Equal(t, roadbookv1.Code_CODE_ALREADY_RUNNING, errorInfo(t, err).Code)
		require.Equal(t, before+1, h.streamVersion(t, d.TripId), "nothing more written")

		draft := createURL(t, c, "https://www.komoot.com/tour/5", "", nil)
		_, err = c.trips.AnalyzeTrip(ctx, connect.NewRequest(&roadbookv1.AnalyzeTripRequest{TripId: draft, Version: 1}))
		require.Equal(t, connect.CodeFailedPrecondition, connect.CodeOf(err), "no stages to analyse yet")
	})

	t.Run("a stage carries its rider time from the trip's speed and departure hour", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "rider", nil)
		created := uploadWith(t, c.trips, &roadbookv1.TripSettingsInput{AverageSpeedKmPerH: new(float64(20)), DepartureHour: new(uint32(8))})
		h.recordStages(t, created.TripId)
		d := h.getTrip(t, c, created.TripId)
		st, err := c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: d.TripId, StageIndex: 0}))
		require.NoError(t, err)
		s := st.Msg.Stage
		rt := s.RiderTime
		require.NotNil(t, rt)
		// DOMAIN §3: speed = max(5, avg − 2·(D+/500)); riding = km/speed;
		// breaks = floor(riding/2)·10 min, plus 1 h lunch when the ride spans noon.
		speed := math.Max(5, 20-2*(s.AscentM/500))
		riding := s.DistanceM / 1000 / speed
		breaks := math.Floor(riding/2) * 10 / 60
		if 8 < 12 && 12 < 8+riding {
			breaks++
		}
		require.InDelta(t, speed, rt.EffectiveSpeedKmPerH, 1e-9)
		require.EqualValues(t, 8*60, rt.DepartureMinuteOfDay)
		require.InDelta(t, riding*60, rt.RidingDuration.AsDuration().Minutes(), 0.01)
		require.InDelta(t, breaks*60, rt.BreakDuration.AsDuration().Minutes(), 0.01)
		require.InDelta(t, 8*60+(riding+breaks)*60, float64(rt.ArrivalMinuteOfDay), 1)

		rest, err := c.edits.AddRestDay(ctx, connect.NewRequest(&roadbookv1.AddRestDayRequest{TripId: d.TripId, Version: d.Version, AfterStageIndex: 0}))
		require.NoError(t, err)
		st, err = c.trips.GetStage(ctx, connect.NewRequest(&roadbookv1.GetStageRequest{TripId: d.TripId, StageIndex: 1}))
		require.NoError(t, err)
		require.True(t, st.Msg.Stage.RestDay)
		require.Nil(t, st.Msg.Stage.RiderTime, "a rest day has no schedule")
		require.Equal(t, rest.Msg.Version, st.Msg.Version)
	})

	t.Run("a 31 MiB upload is refused naming the content and writes nothing", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "hoarder", nil)
		body := bytes.Repeat([]byte(" "), 31<<20)
		copy(body, `<?xml version="1.0"?><gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1">`)
		_, err := c.trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "big.gpx", Content: body}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.Equal(t, "content", errorInfo(t, err).Field)
		page, err := h.store.ListStreams(ctx, eventstore.ListQuery{Owner: "hoarder", Limit: 10})
		require.NoError(t, err)
		require.Empty(t, page.Streams)
	})
}
