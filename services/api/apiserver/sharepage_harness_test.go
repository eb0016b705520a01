package apiserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/tripstore"
)

// browserAPI is the share page tests' own server: the API on pgtest and an
// embedded NATS, like production, with the config a test needs.
type browserAPI struct {
	url    string
	trips  *tripstore.Store
	issuer *auth.HS256Issuer
	http   *http.Client
}

// hostileTitle is third-party text the page must escape.
const hostileTitle = `Oslo <script>alert("x")</script> & "Trondheim"`

func newBrowserAPI(t *testing.T, configure func(*apiserver.Config)) *browserAPI {
	t.Helper()
	cfg, iss := browserConfig(t)
	if configure != nil {
		configure(&cfg)
	}
	srv, err := apiserver.New(cfg)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &browserAPI{url: hs.URL, trips: tripstore.New(cfg.Store, nil), issuer: iss, http: hs.Client()}
}

// browserConfig is a complete Config over a fresh pgtest schema and an
// embedded NATS, and the issuer its verifier trusts.
func browserConfig(t *testing.T) (apiserver.Config, *auth.HS256Issuer) {
	t.Helper()
	store := testkit.Store(t)
	_, nc := testkit.NATS(t)

	iss, err := auth.NewHS256Issuer("dev", []byte(strings.Repeat("s", 32)), "roadbook-dev")
	require.NoError(t, err)
	v, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(iss.Key())})
	require.NoError(t, err)
	return apiserver.Config{Store: store, NATS: nc, Verifier: v, PublicBaseURL: "https://roadbook.test"}, iss
}

func (h *browserAPI) token(t *testing.T, user string, scopes ...auth.Scope) string {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []auth.Scope{auth.ScopeRead, auth.ScopeWrite}
	}
	tok, err := h.issuer.Mint(auth.Claims{Subject: user, Audience: []string{auth.DefaultAudience},
		ExpiresAt: time.Now().Add(time.Hour), Scopes: scopes})
	require.NoError(t, err)
	return tok
}

// withToken adds a bearer token to every unary call.
func withToken(tok string) connect.ClientOption {
	return connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+tok)
			return next(ctx, req)
		}
	}))
}

// sharedTrip is a trip a user built from the 627 km Oslo → Trondheim
// fixture: uploaded through the API, its stages recorded the way the
// stages worker does (testkit.ComputeStages), shared.
type sharedTrip struct {
	id, code string
	state    trip.State
}

// plannedTrip uploads the fixture for user (days > 0 fixes the dates to
// that many days), records its stages and, when share is set, shares it.
func (h *browserAPI) plannedTrip(t *testing.T, user, title string, days int, share bool) sharedTrip {
	t.Helper()
	ctx := context.Background()
	tok := h.token(t, user)
	trips := roadbookv1connect.NewTripServiceClient(h.http, h.url, withToken(tok))
	settings := &roadbookv1.TripSettingsInput{}
	if days > 0 {
		start := trip.MustDate("2031-06-02")
		settings.StartDate, settings.EndDate = new(start.String()), new(start.AddDays(days-1).String())
	}
	gpx := fixtures.Read(t, fixtures.OsloTrondheim)
	created, err := trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
		Filename: "oslo.gpx", ContentType: "application/gpx+xml", Content: gpx, Title: title, Settings: settings}))
	require.NoError(t, err)

	id := uuid.MustParse(created.Msg.TripId)
	state := testkit.ComputeStages(t, h.trips, id)
	out := sharedTrip{id: id.String(), state: state}
	if share {
		shares := roadbookv1connect.NewShareServiceClient(h.http, h.url, withToken(tok))
		sh, err := shares.ShareTrip(ctx, connect.NewRequest(&roadbookv1.ShareTripRequest{TripId: out.id, Version: state.Version}))
		require.NoError(t, err)
		out.code = sh.Msg.Share.Code
	}
	return out
}

// get fetches a URL of the API and returns the response and its body.
func (h *browserAPI) get(t *testing.T, path string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.url+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := h.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}
