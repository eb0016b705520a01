package apiserver_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/services/api/auth"
	"github.com/roadbook/roadbook/services/api/tripstore"
)

type harness struct {
	url    string
	store  eventstore.Store
	trips  *tripstore.Store
	issuer *auth.HS256Issuer
	http   *http.Client
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, pgtest.SchemaURL(t))
	require.NoError(t, err)
	require.NoError(t, store.Migrate(ctx))
	t.Cleanup(store.Close)

	ns, err := natsserver.NewServer(&natsserver.Options{Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	ns.Start()
	require.True(t, ns.ReadyForConnections(10*time.Second))
	t.Cleanup(ns.Shutdown)
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)

	iss, err := auth.NewHS256Issuer("dev", []byte(strings.Repeat("k", 32)), "roadbook-dev")
	require.NoError(t, err)
	v, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(iss.Key())})
	require.NoError(t, err)
	srv, err := apiserver.New(apiserver.Config{Store: store, NATS: nc, Verifier: v, PublicBaseURL: "https://roadbook.test",
		WatchPoll: 200 * time.Millisecond})
	require.NoError(t, err)
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetHTTP1(true)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	t.Cleanup(hs.Close)
	return &harness{url: hs.URL, store: store, trips: tripstore.New(store, nil), issuer: iss, http: hs.Client()}
}

func (h *harness) token(t *testing.T, user string) string {
	t.Helper()
	tok, err := h.issuer.Mint(auth.Claims{Subject: user, Audience: []string{auth.DefaultAudience},
		ExpiresAt: time.Now().Add(time.Hour), Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	return tok
}

// bearer adds a user's token to every call.
func bearer(tok string) connect.ClientOption {
	return connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+tok)
			return next(ctx, req)
		}
	}), streamBearer(tok))
}

type streamBearer string

func (s streamBearer) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc { return next }
func (s streamBearer) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		c := next(ctx, spec)
		c.RequestHeader().Set("Authorization", "Bearer "+string(s))
		return c
	}
}
func (s streamBearer) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

func errorInfo(t *testing.T, err error) *roadbookv1.ErrorInfo {
	t.Helper()
	var ce *connect.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	for _, d := range ce.Details() {
		v, derr := d.Value()
		if info, ok := v.(*roadbookv1.ErrorInfo); ok && derr == nil {
			return info
		}
	}
	t.Fatalf("no ErrorInfo in %v", err)
	return nil
}

// recordStages paces the trip's route and records the result the way the
// stages worker does: tripstore with the system actor.
func (h *harness) recordStages(t *testing.T, id string) {
	t.Helper()
	ctx := context.Background()
	tid := uuid.MustParse(id)
	l, err := h.trips.Load(ctx, tripstore.System(), tid)
	require.NoError(t, err)
	pts, err := h.trips.Route(ctx, l.State.Route.Hash)
	require.NoError(t, err)
	st := l.State.Settings
	plan, err := pacing.Plan(pts, pacing.Settings{FatigueFactor: st.FatigueFactor, ElevationPenalty: st.ElevationPenaltyM,
		MaxDistancePerDayKm: st.MaxDistancePerDayKm, AverageSpeedKmh: st.AverageSpeedKmH, DepartureHour: st.DepartureHour})
	require.NoError(t, err)
	var stages []trip.Stage
	for _, ps := range plan.Stages {
		stages = append(stages, trip.Stage{RestDay: ps.RestDay, Start: ps.Start, End: ps.End, Geometry: ps.Geometry,
			DistanceM: ps.DistanceM, AscentM: ps.AscentM, DescentM: ps.DescentM, Origin: trip.OriginPaced})
	}
	_, err = h.trips.Execute(ctx, tripstore.System(), tid, trip.RecordStagesComputed{For: l.State.StagesProgress.For, Stages: stages},
		tripstore.Options{})
	require.NoError(t, err)
}

func upload(t *testing.T, c roadbookv1connect.TripServiceClient) *roadbookv1.CreateTripFromUploadResponse {
	t.Helper()
	resp, err := c.CreateTripFromUpload(context.Background(), connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
		Filename: "oslo.gpx", ContentType: "application/gpx+xml", Content: fixture(t, "long_brouter_oslo-trondheim_fastbike.gpx")}))
	require.NoError(t, err)
	return resp.Msg
}

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
		require.Len(t, sh.Msg.Share.Code, 8)
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
		for _, name := range []string{"defusedxml_xmlbomb.xml", "patt_classic-xxe-etc-passwd.xml"} {
			_, err := c.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "x.gpx", Content: fixture(t, name)}))
			require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err), name)
			require.Equal(t, "content", errorInfo(t, err).Field)
		}
		_, err := c.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "x.txt", Content: []byte("<gpx/>")}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.Equal(t, "filename", errorInfo(t, err).Field)
		bad := strings.Replace(string(fixture(t, "long_brouter_oslo-trondheim_fastbike.gpx")), `lat="`, `lat="91`, 1)
		_, err = c.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "x.gpx", Content: []byte(bad)}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.Contains(t, err.Error(), "line")
		_, err = c.UpdateTripSettings(ctx, connect.NewRequest(&roadbookv1.UpdateTripSettingsRequest{TripId: uuid.NewString(), Version: 1,
			Settings: &roadbookv1.TripSettingsInput{MaxDistancePerDayKm: new(float64(500))}}))
		require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
		require.Equal(t, "settings.max_distance_per_day_km", errorInfo(t, err).Field)
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
		tr := &http.Transport{Protocols: new(http.Protocols)}
		tr.Protocols.SetUnencryptedHTTP2(true)
		tr.DialContext = (&net.Dialer{}).DialContext
		hc := &http.Client{Transport: tr}
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
