package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/roadbook/roadbook/proto/errorcode"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// scriptedTrips is a TripService whose GetTrip answers the error named by
// the trip id, as the API's connectError writes it.
type scriptedTrips struct {
	roadbookv1connect.UnimplementedTripServiceHandler
}

func (scriptedTrips) GetTrip(ctx context.Context, req *connect.Request[roadbookv1.GetTripRequest]) (*connect.Response[roadbookv1.GetTripResponse], error) {
	withInfo := func(code connect.Code, msg string, info *roadbookv1.ErrorInfo) error {
		e := connect.NewError(code, errors.New(msg))
		d, err := connect.NewErrorDetail(info)
		if err != nil {
			return err
		}
		e.AddDetail(d)
		return e
	}
	switch req.Msg.TripId {
	case "transient":
		return nil, withInfo(connect.CodeUnavailable, "the service is briefly unavailable; retry in a few seconds",
			&roadbookv1.ErrorInfo{Code: roadbookv1.Code_CODE_UNAVAILABLE, RetryDelay: durationpb.New(2 * time.Second)})
	case "deadline":
		return nil, withInfo(connect.CodeDeadlineExceeded, "the call ran out of time; retry",
			&roadbookv1.ErrorInfo{Code: roadbookv1.Code_CODE_UNAVAILABLE, RetryDelay: durationpb.New(time.Second)})
	case "cancelled":
		return nil, connect.NewError(connect.CodeCanceled, errors.New("the call was cancelled"))
	case "slow":
		<-ctx.Done() // the client gives up first
		return nil, ctx.Err()
	case "bug":
		return nil, connect.NewError(connect.CodeInternal, errors.New("internal error"))
	}
	return nil, connect.NewError(connect.CodeNotFound, errors.New("trip not found"))
}

// TestToolResultTransient feeds toolResult the errors a get_trip meets when
// the API is slow, restarting or unreachable — real Connect errors, from a
// real client against a real server — and requires `unavailable` with a
// retry delay; a bug in the API or here stays `internal`.
func TestToolResultTransient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, h := roadbookv1connect.NewTripServiceHandler(scriptedTrips{})
	api := httptest.NewServer(h)
	t.Cleanup(api.Close)
	get := func(t *testing.T, hc *http.Client, base, id string, ctx context.Context) error {
		t.Helper()
		_, err := roadbookv1connect.NewTripServiceClient(hc, base).GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: id}))
		require.Error(t, err)
		return err
	}

	// An API that sends headers, then dies in the middle of the body.
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/proto")
		w.Header().Set("Content-Length", "4096")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}))
	t.Cleanup(cut.Close)
	// An API that is not listening (stopped, or restarting).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	for _, tc := range []struct {
		name string
		err  func(t *testing.T) error
		code string
	}{
		{"the API's own Unavailable (PostgreSQL restarting)", func(t *testing.T) error { return get(t, api.Client(), api.URL, "transient", ctx) }, CodeUnavailable},
		{"the API's DeadlineExceeded with a retry delay", func(t *testing.T) error { return get(t, api.Client(), api.URL, "deadline", ctx) }, CodeUnavailable},
		{"the API's Canceled without a detail", func(t *testing.T) error { return get(t, api.Client(), api.URL, "cancelled", ctx) }, CodeUnavailable},
		{"a response body cut off mid-way", func(t *testing.T) error { return get(t, cut.Client(), cut.URL, "x", ctx) }, CodeUnavailable},
		{"a refused connection", func(t *testing.T) error { return get(t, http.DefaultClient, down, "x", ctx) }, CodeUnavailable},
		{"the HTTP client's timeout", func(t *testing.T) error {
			return get(t, &http.Client{Timeout: 50 * time.Millisecond}, api.URL, "slow", ctx)
		}, CodeUnavailable},
		{"a call whose context was cancelled", func(t *testing.T) error { return get(t, api.Client(), api.URL, "x", cancelled) }, CodeUnavailable},
		{"the API's Internal (a bug there)", func(t *testing.T) error { return get(t, api.Client(), api.URL, "bug", ctx) }, CodeInternal},
		{"an error of this service", func(*testing.T) error { return errors.New("marshal get_trip output: boom") }, CodeInternal},
	} {
		t.Run(tc.name+" is answered "+tc.code, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			env := &Env{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
			tool := getTrip()
			res := env.toolResult(ctx, &tool, json.RawMessage(`{"tripId":"x"}`), tc.err(t))
			e := resultError(t, res)
			require.Equal(t, tc.code, e.Code, "message: %s", e.Message)
			if tc.code == CodeUnavailable {
				require.Positive(t, e.RetryAfterSeconds, "an agent is told when to retry")
				require.Contains(t, e.Message, "retry")
				require.NotContains(t, logs.String(), "level=ERROR", "a transient failure is not logged as a bug")
			} else {
				require.Equal(t, "internal error", e.Message)
				require.Zero(t, e.RetryAfterSeconds)
				require.Contains(t, logs.String(), "level=ERROR")
			}
		})
	}
}

// resultError is the {"error": …} of an isError tool result.
func resultError(t *testing.T, res *mcp.CallToolResult) Error {
	t.Helper()
	require.True(t, res.IsError)
	require.Nil(t, res.StructuredContent)
	require.Len(t, res.Content, 1)
	var body struct {
		Error Error `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body))
	return body.Error
}

func TestCodesAreTheAPIsWords(t *testing.T) {
	t.Parallel()
	mcp := []string{CodeInvalidArgument, CodeNotFound, CodeVersionConflict, CodePreconditionFailed, CodeLocked, CodeConflict,
		CodeAlreadyRunning, CodeConfirmationRequired, CodeStaleCursor, CodeRateLimited, CodeUnavailable}
	t.Run("every roadbook.v1.Code is one of the tools' codes, and back", func(t *testing.T) {
		t.Parallel()
		var words []string
		for v := range roadbookv1.Code_name {
			if w := errorcode.Word(roadbookv1.Code(v)); w != "" {
				words = append(words, w)
			}
		}
		require.ElementsMatch(t, mcp, words)
	})
	t.Run("the transport's own codes are no API code", func(t *testing.T) {
		t.Parallel()
		for _, c := range []string{CodeUnauthenticated, CodePermissionDenied, CodeInternal} {
			require.Equal(t, roadbookv1.Code_CODE_UNSPECIFIED, errorcode.Of(c), c)
		}
	})
}
