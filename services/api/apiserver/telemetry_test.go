package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

func TestTelemetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(ctx) })
	logs := &testkit.SyncBuffer{}
	h := newHarness(t, func(c *apiserver.Config) {
		c.TracerProvider = tp
		c.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	})
	c := h.as(t, "tracy", nil)
	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"

	t.Run("a call continues the caller's traceparent and its events and log line carry the span", func(t *testing.T) {
		req := connect.NewRequest(&roadbookv1.CreateTripFromUrlRequest{Url: "https://www.komoot.com/tour/123456"})
		req.Header().Set("traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
		res, err := c.trips.CreateTripFromUrl(ctx, req)
		require.NoError(t, err)

		span := endedSpan(t, rec, "roadbook.v1.TripService/CreateTripFromUrl")
		require.Equal(t, trace.SpanKindServer, span.SpanKind())
		require.Equal(t, callerTrace, span.SpanContext().TraceID().String())
		require.Equal(t, callerSpan, span.Parent().SpanID().String())
		require.True(t, span.Parent().IsRemote())

		id := uuid.MustParse(res.Msg.GetTripId())
		evs, err := h.store.ReadStream(ctx, tripstore.StreamID(id), 0, 10)
		require.NoError(t, err)
		require.NotEmpty(t, evs)
		require.Equal(t, "00-"+callerTrace+"-"+span.SpanContext().SpanID().String()+"-01", evs[0].Metadata.Trace["traceparent"])

		line := findLog(t, logs, "/roadbook.v1.TripService/CreateTripFromUrl")
		require.Equal(t, "ok", line["code"])
		require.Equal(t, id.String(), line["trip_id"], "the created trip's id, from the response")
		require.Equal(t, evs[0].Metadata.CorrelationID, line["correlation_id"])
		require.Equal(t, callerTrace, line["trace_id"])
	})

	t.Run("a refused call is logged with its code and the request's trip id, its span not marked failed", func(t *testing.T) {
		missing := uuid.NewString()
		_, err := c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: missing}))
		require.Equal(t, connect.CodeNotFound, connect.CodeOf(err))

		span := endedSpan(t, rec, "roadbook.v1.TripService/GetTrip")
		require.NotEqual(t, codes.Error, span.Status().Code, "a caller's mistake is not the server's failure")
		line := findLog(t, logs, "/roadbook.v1.TripService/GetTrip")
		require.Equal(t, "not_found", line["code"])
		require.Equal(t, missing, line["trip_id"])
		require.Equal(t, span.SpanContext().TraceID().String(), line["trace_id"])
	})
}

func endedSpan(t *testing.T, rec *tracetest.SpanRecorder, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range rec.Ended() {
		if s.Name() == name {
			return s
		}
	}
	require.FailNow(t, "no span named "+name)
	return nil
}

// findLog is the request log line of procedure.
func findLog(t *testing.T, logs *testkit.SyncBuffer, procedure string) map[string]any {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var l map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), sc.Text())
		if l["msg"] == "rpc" && l["procedure"] == procedure {
			return l
		}
	}
	require.FailNow(t, "no request log line for "+procedure, logs.String())
	return nil
}
