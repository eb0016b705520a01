package apiserver_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/tripstore"
)

// harness is one API on a fresh PostgreSQL schema and an embedded NATS
// server, served by an httptest server speaking HTTP/1.1 and h2c.
type harness struct {
	url string
	// store is the raw store, for assertions behind the API's back.
	store eventstore.Store
	// faults wraps store as the API sees it, to inject failures.
	faults   *faultStore
	trips    *tripstore.Store
	issuer   *auth.HS256Issuer
	http     *http.Client
	nats     *testkit.NATSServer
	nc       *nats.Conn
	srv      *apiserver.Server
	registry *prometheus.Registry
}

// harnessConfig adjusts the API's Config before it starts.
type harnessConfig func(*apiserver.Config)

func newHarness(t *testing.T, opts ...harnessConfig) *harness {
	t.Helper()
	store := testkit.Store(t)
	ns, nc := testkit.NATS(t)

	iss, err := auth.NewHS256Issuer("dev", []byte(strings.Repeat("k", 32)), "roadbook-dev")
	require.NoError(t, err)
	v, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(iss.Key())})
	require.NoError(t, err)
	faults := &faultStore{Store: store, failDelete: map[eventstore.StreamID]error{}, listLimits: map[string][]int{}}
	reg := prometheus.NewRegistry()
	cfg := apiserver.Config{Store: faults, NATS: nc, Verifier: v, PublicBaseURL: "https://roadbook.test",
		WatchPoll: 200 * time.Millisecond, Registry: reg, GeocodeTimeout: 2 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := apiserver.New(cfg)
	require.NoError(t, err)
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetHTTP1(true)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	t.Cleanup(hs.Close)
	return &harness{url: hs.URL, store: store, faults: faults, trips: tripstore.New(store, nil), issuer: iss,
		http: hs.Client(), nats: ns, nc: nc, srv: srv, registry: reg}
}

func (h *harness) token(t *testing.T, user string) string {
	t.Helper()
	tok, err := h.issuer.Mint(auth.Claims{Subject: user, Audience: []string{auth.DefaultAudience},
		ExpiresAt: time.Now().Add(time.Hour), Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	return tok
}

// clients are one user's Connect clients of every service.
type clients struct {
	user     string
	trips    roadbookv1connect.TripServiceClient
	edits    roadbookv1connect.StageEditServiceClient
	accs     roadbookv1connect.AccommodationServiceClient
	shares   roadbookv1connect.ShareServiceClient
	public   roadbookv1connect.PublicShareServiceClient
	exports  roadbookv1connect.ExportServiceClient
	geo      roadbookv1connect.GeocodingServiceClient
	account  roadbookv1connect.AccountServiceClient
	watching roadbookv1connect.WatchServiceClient
}

// as is user's clients over hc (nil: the harness's HTTP/1.1 client).
func (h *harness) as(t *testing.T, user string, hc *http.Client, opts ...connect.ClientOption) clients {
	t.Helper()
	if hc == nil {
		hc = h.http
	}
	opts = append(opts, bearer(h.token(t, user)))
	return clients{
		user:     user,
		trips:    roadbookv1connect.NewTripServiceClient(hc, h.url, opts...),
		edits:    roadbookv1connect.NewStageEditServiceClient(hc, h.url, opts...),
		accs:     roadbookv1connect.NewAccommodationServiceClient(hc, h.url, opts...),
		shares:   roadbookv1connect.NewShareServiceClient(hc, h.url, opts...),
		public:   roadbookv1connect.NewPublicShareServiceClient(hc, h.url, opts...),
		exports:  roadbookv1connect.NewExportServiceClient(hc, h.url, opts...),
		geo:      roadbookv1connect.NewGeocodingServiceClient(hc, h.url, opts...),
		account:  roadbookv1connect.NewAccountServiceClient(hc, h.url, opts...),
		watching: roadbookv1connect.NewWatchServiceClient(hc, h.url, opts...),
	}
}

// h2c is an HTTP client speaking only unencrypted HTTP/2, as gRPC does.
func h2c() *http.Client {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	tr.DialContext = (&net.Dialer{}).DialContext
	return &http.Client{Transport: tr}
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

// faultStore is the store the API sees: the real one, with failures a test
// switches on and a record of list page sizes.
type faultStore struct {
	eventstore.Store
	mu         sync.Mutex
	failDelete map[eventstore.StreamID]error
	listLimits map[string][]int
}

// failDeleteOf makes DeleteStream of stream fail with err (nil: heal).
func (f *faultStore) failDeleteOf(stream eventstore.StreamID, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		delete(f.failDelete, stream)
		return
	}
	f.failDelete[stream] = err
}

func (f *faultStore) DeleteStream(ctx context.Context, stream eventstore.StreamID) error {
	f.mu.Lock()
	err := f.failDelete[stream]
	f.mu.Unlock()
	if err != nil {
		return err
	}
	return f.Store.DeleteStream(ctx, stream)
}

func (f *faultStore) ListStreams(ctx context.Context, q eventstore.ListQuery) (eventstore.ListPage, error) {
	f.mu.Lock()
	f.listLimits[q.Owner] = append(f.listLimits[q.Owner], q.Limit)
	f.mu.Unlock()
	return f.Store.ListStreams(ctx, q)
}

// limitsOf are the page sizes the API asked the store for on owner's rows.
func (f *faultStore) limitsOf(owner string) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.listLimits[owner]...)
}

var errInjected = errors.New("injected failure")

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

// recordStages records the trip's stages with the stages worker's own use
// case (testkit.ComputeStages).
func (h *harness) recordStages(t *testing.T, id string) {
	t.Helper()
	testkit.ComputeStages(t, h.trips, uuid.MustParse(id))
}

// uploadWith uploads the 627 km Oslo–Trondheim fixture with settings.
func uploadWith(t *testing.T, c roadbookv1connect.TripServiceClient, settings *roadbookv1.TripSettingsInput) *roadbookv1.CreateTripFromUploadResponse {
	t.Helper()
	resp, err := c.CreateTripFromUpload(context.Background(), connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
		Filename: "oslo.gpx", ContentType: "application/gpx+xml", Content: fixtures.Read(t, fixtures.OsloTrondheim),
		Settings: settings}))
	require.NoError(t, err)
	return resp.Msg
}

func upload(t *testing.T, c roadbookv1connect.TripServiceClient) *roadbookv1.CreateTripFromUploadResponse {
	t.Helper()
	return uploadWith(t, c, nil)
}

// readyTrip is an uploaded trip whose stages a worker recorded.
func (h *harness) readyTrip(t *testing.T, c clients) *roadbookv1.TripDigest {
	t.Helper()
	created := upload(t, c.trips)
	h.recordStages(t, created.TripId)
	return h.getTrip(t, c, created.TripId)
}

func (h *harness) getTrip(t *testing.T, c clients, id string) *roadbookv1.TripDigest {
	t.Helper()
	got, err := c.trips.GetTrip(context.Background(), connect.NewRequest(&roadbookv1.GetTripRequest{TripId: id}))
	require.NoError(t, err)
	return got.Msg.Trip
}

// streamVersion is the trip stream's version as stored.
func (h *harness) streamVersion(t *testing.T, id string) int64 {
	t.Helper()
	info, err := h.store.Stream(context.Background(), tripstore.StreamID(uuid.MustParse(id)))
	require.NoError(t, err)
	return info.Version
}

// smallGPX is a two-point route of its own (its own route blob).
func smallGPX(lat float64) []byte {
	return fmt.Appendf(nil, `<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>`+
		`<trkpt lat="%.5f" lon="10.0"/><trkpt lat="%.5f" lon="10.1"/><trkpt lat="%.5f" lon="10.2"/></trkseg></trk></gpx>`, lat, lat+0.01, lat+0.02)
}

// finishAnalyses lands every running analysis of the trip as complete with
// no alerts, the way the analysis worker records its final result.
func (h *harness) finishAnalyses(t *testing.T, id string) {
	t.Helper()
	ctx := context.Background()
	tid := uuid.MustParse(id)
	l, err := h.trips.Load(ctx, tripstore.System(), tid)
	require.NoError(t, err)
	for _, a := range l.State.Analyses {
		if a.Status != trip.ComputationRequested {
			continue
		}
		var stages []trip.StageAnalysis
		for _, ref := range a.Stages {
			stages = append(stages, trip.StageAnalysis{Stage: ref, Families: map[trip.Family]trip.Availability{"geometry": "available"}})
		}
		_, err := h.trips.Execute(ctx, tripstore.System(), tid, trip.RecordAnalysis{AnalysisID: a.ID, Stages: stages, Final: true}, tripstore.Options{})
		require.NoError(t, err)
	}
}
