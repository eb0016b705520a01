package apiserver_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/roadbook/roadbook/eventstore"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/tripstore"
)

func TestAPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	ann := h.token(t, "ann")
	trips := roadbookv1connect.NewTripServiceClient(h.http, h.url, bearer(ann))
	edits := roadbookv1connect.NewStageEditServiceClient(h.http, h.url, bearer(ann))
	shares := roadbookv1connect.NewShareServiceClient(h.http, h.url, bearer(ann))
	exports := roadbookv1connect.NewExportServiceClient(h.http, h.url, bearer(ann))
	public := roadbookv1connect.NewPublicShareServiceClient(h.http, h.url)

	t.Run("an upload creates a computing trip whose stages a worker then records", func(t *testing.T) {
		t.Parallel()
		created := upload(t, trips)
		require.EqualValues(t, 1, created.Version)
		require.Equal(t, roadbookv1.TripStatus_TRIP_STATUS_COMPUTING, created.Status)
		got, err := trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: created.TripId}))
		require.NoError(t, err)
		require.True(t, got.Msg.Trip.Partial)
		require.InDelta(t, 627000, got.Msg.Trip.DistanceM, 15000)

		h.recordStages(t, created.TripId)
		got, err = trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: created.TripId}))
		require.NoError(t, err)
		require.Greater(t, len(got.Msg.Trip.Stages), 2)
		require.Equal(t, roadbookv1.TripStatus_TRIP_STATUS_READY, got.Msg.Trip.Status)

		geom, err := trips.GetRouteGeometry(ctx, connect.NewRequest(&roadbookv1.GetRouteGeometryRequest{TripId: created.TripId, MaxPoints: new(uint32(50))}))
		require.NoError(t, err)
		require.LessOrEqual(t, geom.Msg.Geometry.PointCount, uint32(50))
		require.NotEmpty(t, geom.Msg.Geometry.Polyline)

		// A stale version is aborted with the current version, nothing written.
		_, err = edits.AddRestDay(ctx, connect.NewRequest(&roadbookv1.AddRestDayRequest{TripId: created.TripId, Version: 99, AfterStageIndex: 0}))
		require.Equal(t, connect.CodeAborted, connect.CodeOf(err))
		info := errorInfo(t, err)
		require.Equal(t, roadbookv1.Code_CODE_VERSION_CONFLICT, info.Code)
		require.EqualValues(t, got.Msg.Trip.Version, info.GetCurrentVersion())

		// validate_only returns the impact and writes nothing.
		before, err := h.store.Stream(ctx, tripstore.StreamID(uuid.MustParse(created.TripId)))
		require.NoError(t, err)
		prev, err := edits.DeleteStage(ctx, connect.NewRequest(&roadbookv1.DeleteStageRequest{TripId: created.TripId, Version: got.Msg.Trip.Version, StageIndex: 0, ValidateOnly: true}))
		require.NoError(t, err)
		require.EqualValues(t, len(got.Msg.Trip.Stages)-1, prev.Msg.Impact.GetStageCountAfter())
		after, err := h.store.Stream(ctx, tripstore.StreamID(uuid.MustParse(created.TripId)))
		require.NoError(t, err)
		require.Equal(t, before.Version, after.Version)

		// A real edit moves the version.
		rest, err := edits.AddRestDay(ctx, connect.NewRequest(&roadbookv1.AddRestDayRequest{TripId: created.TripId, Version: got.Msg.Trip.Version, AfterStageIndex: 0}))
		require.NoError(t, err)
		require.Equal(t, got.Msg.Trip.Version+1, rest.Msg.Version)
		require.False(t, rest.Msg.VersionUnchanged)
		require.True(t, rest.Msg.Trip.Stages[1].RestDay)

		gpx, err := exports.ExportTrip(ctx, connect.NewRequest(&roadbookv1.ExportTripRequest{TripId: created.TripId, Format: roadbookv1.ExportFormat_EXPORT_FORMAT_GPX}))
		require.NoError(t, err)
		require.Contains(t, string(gpx.Msg.File.Content), `creator="Roadbook"`)

		// Sharing does not move the version; the public code reads without a token.
		sh, err := shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: created.TripId, Version: rest.Msg.Version}))
		require.NoError(t, err)
		require.True(t, sh.Msg.VersionUnchanged)
		require.Len(t, sh.Msg.Share.Code, 16)
		pub, err := public.GetSharedTrip(ctx, connect.NewRequest(&roadbookv1.GetSharedTripRequest{Code: sh.Msg.Share.Code}))
		require.NoError(t, err)
		require.Equal(t, len(rest.Msg.Trip.Stages), len(pub.Msg.Trip.Stages))
		file, err := public.ExportSharedTrip(ctx, connect.NewRequest(&roadbookv1.ExportSharedTripRequest{Code: sh.Msg.Share.Code, Format: roadbookv1.ExportFormat_EXPORT_FORMAT_GPX}))
		require.NoError(t, err)
		require.NotContains(t, string(file.Msg.File.Content), "<time>")
		require.NotContains(t, string(file.Msg.File.Content), "<author>")

		_, err = shares.UnshareTrip(ctx, connect.NewRequest(&roadbookv1.UnshareTripRequest{TripId: created.TripId, Version: rest.Msg.Version}))
		require.NoError(t, err)
		_, err = public.GetSharedTrip(ctx, connect.NewRequest(&roadbookv1.GetSharedTripRequest{Code: sh.Msg.Share.Code}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))
	})

	t.Run("hostile and malformed uploads are refused naming the field and write nothing", func(t *testing.T) {
		t.Parallel()
		bob := h.token(t, "bob-hostile")
		c := roadbookv1connect.NewTripServiceClient(h.http, h.url, bearer(bob))
		for _, name := range []string{fixtures.XMLBomb, fixtures.ClassicXXE} {
			_, err := c.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "x.gpx", Content: fixtures.Read(t, name)}))
			require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err), name)
			require.Equal(t, "content", errorInfo(t, err).Field)
		}
		_, err := c.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "x.txt", Content: []byte("<gpx/>")}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.Equal(t, "filename", errorInfo(t, err).Field)
		bad := strings.Replace(string(fixtures.Read(t, fixtures.OsloTrondheim)), `lat="`, `lat="91`, 1)
		_, err = c.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "x.gpx", Content: []byte(bad)}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.Contains(t, err.Error(), "line")
		_, err = c.UpdateTripSettings(ctx, connect.NewRequest(&roadbookv1.UpdateTripSettingsRequest{TripId: uuid.NewString(), Version: 1,
			Settings: &roadbookv1.TripSettingsInput{MaxDistancePerDayKm: new(float64(500))}}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.Equal(t, "settings.maxDistancePerDayKm", errorInfo(t, err).Field)
		page, err := h.store.ListStreams(ctx, eventstore.ListQuery{Owner: "bob-hostile", Limit: 10})
		require.NoError(t, err)
		require.Empty(t, page.Streams)
	})

	t.Run("not found and not yours are byte-identical", func(t *testing.T) {
		t.Parallel()
		created := upload(t, trips)
		eve := h.token(t, "eve")
		raw := func(id string) (int, string) {
			req, err := http.NewRequest(http.MethodPost, h.url+roadbookv1connect.TripServiceGetTripProcedure, strings.NewReader(`{"tripId":"`+id+`"}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+eve)
			resp, err := h.http.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			return resp.StatusCode, string(b)
		}
		s1, b1 := raw(created.TripId)
		s2, b2 := raw(uuid.NewString())
		require.Equal(t, http.StatusNotFound, s1)
		require.Equal(t, s1, s2)
		require.Equal(t, b1, b2)
	})

	t.Run("a call without a token is unauthenticated", func(t *testing.T) {
		t.Parallel()
		anon := roadbookv1connect.NewTripServiceClient(h.http, h.url)
		_, err := anon.ListTrips(ctx, connect.NewRequest(&roadbookv1.ListTripsRequest{}))
		require.Equal(t, connect.CodeUnauthenticated, connect.CodeOf(err))
	})

	t.Run("an idempotency key replays the first answer and refuses other arguments", func(t *testing.T) {
		t.Parallel()
		carol := h.token(t, "carol")
		c := roadbookv1connect.NewTripServiceClient(h.http, h.url, bearer(carol))
		req := &roadbookv1.CreateTripFromUrlRequest{Url: "https://www.komoot.com/tour/123", IdempotencyKey: new("key-12345678")}
		a, err := c.CreateTripFromUrl(ctx, connect.NewRequest(req))
		require.NoError(t, err)
		b, err := c.CreateTripFromUrl(ctx, connect.NewRequest(req))
		require.NoError(t, err)
		require.Equal(t, a.Msg.TripId, b.Msg.TripId)
		require.Empty(t, a.Header().Get(apiserver.ReplayedHeader), "the first answer is no replay")
		require.Equal(t, "true", b.Header().Get(apiserver.ReplayedHeader), "a replay says so, for a caller that must check it is still true")
		other := &roadbookv1.CreateTripFromUrlRequest{Url: "https://www.komoot.com/tour/456", IdempotencyKey: new("key-12345678")}
		_, err = c.CreateTripFromUrl(ctx, connect.NewRequest(other))
		require.Equal(t, connect.CodeAlreadyExists, connect.CodeOf(err))
		require.Equal(t, roadbookv1.Code_CODE_CONFLICT, errorInfo(t, err).Code)
		list, err := c.ListTrips(ctx, connect.NewRequest(&roadbookv1.ListTripsRequest{}))
		require.NoError(t, err)
		require.Len(t, list.Msg.Trips, 1)
	})

	t.Run("per-user create limits answer resource exhausted with a retry delay", func(t *testing.T) {
		t.Parallel()
		dan := h.token(t, "dan")
		c := roadbookv1connect.NewTripServiceClient(h.http, h.url, bearer(dan))
		var err error
		for range 11 {
			_, err = c.CreateTripFromUrl(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUrlRequest{Url: "https://www.strava.com/routes/1"}))
			if err != nil {
				break
			}
		}
		require.Equal(t, connect.CodeResourceExhausted, connect.CodeOf(err))
		require.Positive(t, errorInfo(t, err).RetryDelay.AsDuration())
	})

	t.Run("gRPC clients reach GetTrip and WatchTrip over HTTP/2", func(t *testing.T) {
		t.Parallel()
		created := upload(t, trips)
		hc := h2c()
		g := roadbookv1connect.NewTripServiceClient(hc, h.url, connect.WithGRPC(), bearer(ann))
		got, err := g.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: created.TripId}))
		require.NoError(t, err)
		require.Equal(t, created.TripId, got.Msg.Trip.TripId)

		w := roadbookv1connect.NewWatchServiceClient(hc, h.url, connect.WithGRPC(), bearer(ann))
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stream, err := w.WatchTrip(wctx, connect.NewRequest(&roadbookv1.WatchTripRequest{TripId: created.TripId}))
		require.NoError(t, err)
		require.True(t, stream.Receive(), "%v", stream.Err())
		require.Equal(t, []roadbookv1.TripChange{roadbookv1.TripChange_TRIP_CHANGE_SNAPSHOT}, stream.Msg().Changes)
		h.recordStages(t, created.TripId)
		require.True(t, stream.Receive(), "%v", stream.Err())
		require.Contains(t, stream.Msg().Changes, roadbookv1.TripChange_TRIP_CHANGE_STAGES)
		require.NotEmpty(t, stream.Msg().Trip.Stages)
		cancel()
	})
}

func get(t *testing.T, hc *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := hc.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("health, readiness and gRPC health answer on the public port, metrics and reflection only on the admin one", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		admin := httptest.NewUnstartedServer(h.srv.AdminHandler())
		admin.Config.Protocols = new(http.Protocols)
		admin.Config.Protocols.SetHTTP1(true)
		admin.Config.Protocols.SetUnencryptedHTTP2(true)
		admin.Start()
		t.Cleanup(admin.Close)
		for _, base := range []string{h.url, admin.URL} {
			code, body := get(t, h.http, base+"/healthz")
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, "ok\n", body)
			code, body = get(t, h.http, base+"/readyz")
			require.Equal(t, http.StatusOK, code, body)
		}

		_, err := h.as(t, "counted", nil).trips.ListTrips(ctx, connect.NewRequest(&roadbookv1.ListTripsRequest{}))
		require.NoError(t, err)
		code, body := get(t, h.http, admin.URL+"/metrics")
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, body, `roadbook_api_requests_total{code="ok",procedure="/roadbook.v1.TripService/ListTrips"} 1`)
		require.Contains(t, body, `roadbook_api_request_duration_seconds_count{procedure="/roadbook.v1.TripService/ListTrips"} 1`)
		code, _ = get(t, h.http, h.url+"/metrics")
		require.Equal(t, http.StatusNotFound, code, "the public port serves no metrics")

		req, err := http.NewRequest(http.MethodPost, h.url+"/grpc.health.v1.Health/Check", strings.NewReader(`{"service":"roadbook.v1.TripService"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := h.http.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
		require.JSONEq(t, `{"status":"SERVING_STATUS_SERVING"}`, string(b))

		stream := grpcreflect.NewClient(h2c(), admin.URL, connect.WithGRPC()).NewStream(ctx)
		names, err := stream.ListServices()
		require.NoError(t, err)
		_, _ = stream.Close()
		for _, svc := range []protoreflect.FullName{roadbookv1connect.TripServiceName, roadbookv1connect.WatchServiceName, roadbookv1connect.AccountServiceName} {
			require.Contains(t, names, svc)
		}
		public := grpcreflect.NewClient(h2c(), h.url, connect.WithGRPC()).NewStream(ctx)
		_, err = public.ListServices()
		_, _ = public.Close()
		require.Error(t, err, "the public port serves no reflection")
	})

	t.Run("readiness turns unready when NATS goes away", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		code, _ := get(t, h.http, h.url+"/readyz")
		require.Equal(t, http.StatusOK, code)
		h.nats.Stop()
		code, body := get(t, h.http, h.url+"/readyz")
		require.Equal(t, http.StatusServiceUnavailable, code)
		require.Contains(t, body, "nats")
		code, _ = get(t, h.http, h.url+"/healthz")
		require.Equal(t, http.StatusOK, code, "the process itself is fine")
	})

	t.Run("shutdown drains: unready at once, watch streams end cleanly, Serve returns", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		served := make(chan error, 1)
		go func() { served <- h.srv.Serve(ln) }()
		base := "http://" + ln.Addr().String()
		c := h.as(t, "drained", nil)
		created := upload(t, c.trips)
		w := roadbookv1connect.NewWatchServiceClient(h.http, base, bearer(h.token(t, "drained")))
		stream, err := w.WatchTrip(ctx, connect.NewRequest(&roadbookv1.WatchTripRequest{TripId: created.TripId}))
		require.NoError(t, err)
		require.True(t, stream.Receive(), "%v", stream.Err())

		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		require.NoError(t, h.srv.Shutdown(sctx))
		require.False(t, stream.Receive())
		require.NoError(t, stream.Err(), "the stream ends, it does not break")
		require.NoError(t, <-served)
		rec := httptest.NewRecorder()
		h.srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	})
}
