package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/fixtures"
)

// countingReader is a request body of n bytes that counts how many the
// transport took from it.
type countingReader struct {
	left int64
	read atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), c.left))
	for i := range p[:n] {
		p[i] = ' '
	}
	c.left -= int64(n)
	c.read.Add(int64(n))
	return n, nil
}

func TestGate(t *testing.T) {
	t.Parallel()
	logs := &testkit.SyncBuffer{}
	h := newHarness(t, func(c *apiserver.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	ctx := context.Background()
	const big = 41 << 20

	// post sends a Connect JSON call of procedure with a body of n bytes and
	// returns the status, the Connect error code and how much of the body
	// left the client.
	post := func(t *testing.T, procedure, token string, n int64, chunked bool) (int, string, int64) {
		t.Helper()
		body := &countingReader{left: n}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url+procedure, body)
		require.NoError(t, err)
		if !chunked {
			req.ContentLength = n
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := h.http.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var wire struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&wire))
		return resp.StatusCode, wire.Code, body.read.Load()
	}

	t.Run("a 41 MiB call without a token is refused before its body is read", func(t *testing.T) {
		t.Parallel()
		status, code, sent := post(t, roadbookv1connect.TripServiceListTripsProcedure, "", big, false)
		require.Equal(t, http.StatusUnauthorized, status)
		require.Equal(t, "unauthenticated", code)
		// Socket buffers take a few MiB at most; reading the body takes all.
		require.Less(t, sent, int64(16<<20), "the server read the body of an unauthenticated call")
	})

	t.Run("a 401 names no reason, the log does", func(t *testing.T) {
		t.Parallel()
		expired, err := h.issuer.Mint(auth.Claims{Subject: "gate-dave", Audience: []string{auth.DefaultAudience},
			ExpiresAt: time.Now().Add(-time.Hour), Scopes: []auth.Scope{auth.ScopeRead}})
		require.NoError(t, err)
		anon := roadbookv1connect.NewTripServiceClient(h.http, h.url, bearer(expired))
		_, err = anon.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: uuid.NewString()}))
		var ce *connect.Error
		require.ErrorAs(t, err, &ce)
		require.Equal(t, connect.CodeUnauthenticated, ce.Code())
		require.Equal(t, auth.UnauthenticatedMessage, ce.Message())
		require.Eventually(t, func() bool {
			return strings.Contains(logs.String(), "GetTrip") && strings.Contains(logs.String(), "expired")
		}, 5*time.Second, 10*time.Millisecond, "the log names the reason: %s", logs.String())
	})

	t.Run("a chunked 41 MiB upload with a bad token is refused before its body is read", func(t *testing.T) {
		t.Parallel()
		status, code, sent := post(t, roadbookv1connect.TripServiceCreateTripFromUploadProcedure, "not-a-token", big, true)
		require.Equal(t, http.StatusUnauthorized, status)
		require.Equal(t, "unauthenticated", code)
		require.Less(t, sent, int64(16<<20), "the server read the body of an unauthenticated call")
	})

	t.Run("an authenticated body over the procedure's limit is resource_exhausted before it is read", func(t *testing.T) {
		t.Parallel()
		status, code, sent := post(t, roadbookv1connect.StageEditServiceRestoreStageLayoutProcedure, h.token(t, "gate-alice"), big, false)
		require.Equal(t, http.StatusTooManyRequests, status) // Connect maps resource_exhausted to 429
		require.Equal(t, "resource_exhausted", code)
		require.Less(t, sent, int64(16<<20))
	})

	t.Run("a chunked body over the limit is cut off at the limit", func(t *testing.T) {
		t.Parallel()
		status, code, _ := post(t, roadbookv1connect.TripServiceListTripsProcedure, h.token(t, "gate-alice"), 2<<20, true)
		require.Equal(t, http.StatusTooManyRequests, status)
		require.Equal(t, "resource_exhausted", code)
	})

	t.Run("a TripService call other than the upload is held to the small limit", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "gate-bob", nil)
		_, err := c.trips.ListTrips(ctx, connect.NewRequest(&roadbookv1.ListTripsRequest{PageToken: strings.Repeat("x", 2<<20)}))
		require.Equal(t, connect.CodeResourceExhausted, connect.CodeOf(err), "%v", err)
	})

	t.Run("a public share read is held to an even smaller limit", func(t *testing.T) {
		t.Parallel()
		status, code, _ := post(t, roadbookv1connect.PublicShareServiceGetSharedTripProcedure, "", 200<<10, false)
		require.Equal(t, http.StatusTooManyRequests, status)
		require.Equal(t, "resource_exhausted", code)
	})

	t.Run("the upload alone still takes a document over the small limit", func(t *testing.T) {
		t.Parallel()
		c := h.as(t, "gate-carol", nil)
		gpx := fixtures.Read(t, fixtures.OsloTrondheim)
		padded := append(bytes.Clone(gpx), []byte("\n<!-- "+strings.Repeat("p", 2<<20)+" -->\n")...)
		resp, err := c.trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
			Filename: "padded.gpx", ContentType: "application/gpx+xml", Content: padded}))
		require.NoError(t, err)
		require.NotEmpty(t, resp.Msg.TripId)
	})

	t.Run("a gRPC caller without a token gets a gRPC unauthenticated status", func(t *testing.T) {
		t.Parallel()
		anon := roadbookv1connect.NewTripServiceClient(h2c(), h.url, connect.WithGRPC())
		_, err := anon.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
			Filename: "a.gpx", Content: bytes.Repeat([]byte("x"), 4<<20)}))
		require.Equal(t, connect.CodeUnauthenticated, connect.CodeOf(err), "%v", err)
	})

}
