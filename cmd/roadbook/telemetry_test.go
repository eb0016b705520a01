package main

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/roadbook/roadbook/eventstore"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/testkit/stack"
)

// TestTraceFollowsUploadToStages runs the API and the worker in process on
// PostgreSQL and an embedded NATS with an in-memory span recorder, uploads a
// GPX and follows one trace id from the CreateTripFromUpload call, through
// the RouteImported event's metadata, the relay's publish and the JOBS
// message's traceparent, to the worker's stages job and the StagesComputed
// event it appends; the job's log line and the request's log line carry the
// same trace, trip and correlation ids, and the metrics the alerts read are
// on the registries.
func TestTraceFollowsUploadToStages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	apiLogs, workerLogs := &testkit.SyncBuffer{}, &testkit.SyncBuffer{}
	apiReg, workerReg := prometheus.NewRegistry(), prometheus.NewRegistry()
	st := stack.New(t, stack.Options{Worker: true, NoMCP: true,
		API: func(c *apiserver.Config) {
			c.Registry, c.Logger, c.TracerProvider = apiReg, slog.New(slog.NewJSONHandler(apiLogs, nil)), tp
		},
		WorkerConfig: func(c *workerserver.Config) {
			c.Registry, c.TracerProvider, c.Logger = workerReg, tp, slog.New(slog.NewJSONHandler(workerLogs, nil))
			c.Geocoder = workerserver.GeocoderNone
		}})
	store := st.Store
	token, err := st.APIToken("ann")
	require.NoError(t, err)
	gpx := fixtures.Read(t, fixtures.OsloTrondheim)
	hc := http.DefaultClient
	client := roadbookv1connect.NewTripServiceClient(hc, st.APIURL)
	req := connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{Filename: "oslo.gpx", Content: gpx})
	req.Header().Set("Authorization", "Bearer "+token)
	res, err := client.CreateTripFromUpload(ctx, req)
	require.NoError(t, err)
	tripID := res.Msg.GetTripId()
	stream := eventstore.StreamID("trip-" + tripID)

	var computed eventstore.RecordedEvent
	require.Eventually(t, func() bool {
		evs, err := store.ReadStream(ctx, stream, 0, 1000)
		require.NoError(t, err)
		for _, ev := range evs {
			if ev.Type == "roadbook.events.v1.StagesComputed" {
				computed = ev
				return true
			}
		}
		return false
	}, 60*time.Second, 20*time.Millisecond, "the worker records the stages")
	var job sdktrace.ReadOnlySpan
	require.Eventually(t, func() bool { // the job's span ends once the message is acked
		job = spanNamed(rec.Ended(), "jobs.stages process")
		return job != nil
	}, 30*time.Second, 10*time.Millisecond)

	t.Run("the API span, the relay span and the worker's job span are one trace", func(t *testing.T) {
		spans := rec.Ended()
		rpc := spanNamed(spans, "roadbook.v1.TripService/CreateTripFromUpload")
		require.NotNil(t, rpc)
		require.Equal(t, trace.SpanKindServer, rpc.SpanKind())
		traceID := rpc.SpanContext().TraceID()
		require.Equal(t, traceID, job.SpanContext().TraceID())
		require.Equal(t, trace.SpanKindConsumer, job.SpanKind())

		relay := byID(spans, job.Parent().SpanID())
		require.NotNil(t, relay, "the job span's parent is recorded")
		require.Equal(t, "relay RouteImported", relay.Name())
		require.Equal(t, trace.SpanKindProducer, relay.SpanKind())
		require.Equal(t, rpc.SpanContext().SpanID(), relay.Parent().SpanID(), "the relay continues the API call's span")
	})

	t.Run("the StagesComputed event carries the job span's trace context", func(t *testing.T) {
		tp := computed.Metadata.Trace["traceparent"]
		require.Equal(t, "00-"+job.SpanContext().TraceID().String()+"-"+job.SpanContext().SpanID().String()+"-01", tp)
		require.Equal(t, "worker:stages", computed.Metadata.Actor)
	})

	t.Run("the request and the job log JSON lines with the trip, correlation and trace ids", func(t *testing.T) {
		traceID := job.SpanContext().TraceID().String()
		evs, err := store.ReadStream(ctx, stream, 0, 2)
		require.NoError(t, err)
		correlation := evs[0].Metadata.CorrelationID
		require.NotEmpty(t, correlation)

		rpcLine := logLine(t, apiLogs, func(l map[string]any) bool {
			return l["msg"] == "rpc" && l["procedure"] == "/roadbook.v1.TripService/CreateTripFromUpload"
		})
		require.Equal(t, tripID, rpcLine["trip_id"])
		require.Equal(t, correlation, rpcLine["correlation_id"], "the events of the call carry the logged correlation id")
		require.Equal(t, traceID, rpcLine["trace_id"])
		require.Equal(t, "ok", rpcLine["code"])

		jobLine := logLine(t, workerLogs, func(l map[string]any) bool {
			return l["msg"] == "job done" && l["kind"] == "stages"
		})
		require.Equal(t, tripID, jobLine["trip_id"])
		require.Equal(t, computed.Metadata.CausationID, jobLine["correlation_id"])
		require.Equal(t, traceID, jobLine["trace_id"])
	})

	t.Run("the worker's registry has the series the PrometheusRule alerts on", func(t *testing.T) {
		families := gather(t, workerReg)
		rule, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "base", "prometheusrule.yaml"))
		require.NoError(t, err)
		names := regexp.MustCompile(`roadbook_[a-z_]+`).FindAllString(string(rule), -1)
		require.NotEmpty(t, names)
		for _, n := range names {
			require.Contains(t, families, n, "the PrometheusRule reads %s", n)
		}
		require.Equal(t, dto.MetricType_GAUGE, families["roadbook_relay_lag_seconds"].GetType())
		require.Len(t, families["roadbook_failure_events_total"].GetMetric(), 3, "import, stages and analysis start at 0")

		var stagesJobs uint64
		for _, m := range families["roadbook_job_duration_seconds"].GetMetric() {
			if label(m, "kind") == "stages" {
				stagesJobs = m.GetHistogram().GetSampleCount()
			}
		}
		require.GreaterOrEqual(t, stagesJobs, uint64(1), "the stages job's duration is observed")
		require.Contains(t, families, "roadbook_upstream_ratelimit_wait_seconds")
		for _, m := range families["roadbook_breaker_state"].GetMetric() {
			require.NotEmpty(t, label(m, "upstream"))
			require.Zero(t, m.GetGauge().GetValue(), "%s's breaker is closed", label(m, "upstream"))
		}
	})

	t.Run("the API's /metrics counts the call", func(t *testing.T) {
		rec := httptest.NewRecorder()
		st.API.AdminHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		require.Equal(t, http.StatusOK, rec.Code)
		require.Contains(t, rec.Body.String(), `roadbook_api_requests_total{code="ok",procedure="/roadbook.v1.TripService/CreateTripFromUpload"} 1`)
	})
}

func spanNamed(spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	for _, s := range spans {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

func byID(spans []sdktrace.ReadOnlySpan, id trace.SpanID) sdktrace.ReadOnlySpan {
	for _, s := range spans {
		if s.SpanContext().SpanID() == id {
			return s
		}
	}
	return nil
}

// logLine is the first JSON log line match accepts.
func logLine(t *testing.T, logs *testkit.SyncBuffer, match func(map[string]any) bool) map[string]any {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "every log line is JSON: %s", sc.Text())
		if match(l) {
			return l
		}
	}
	require.FailNow(t, "no such log line", logs.String())
	return nil
}

func gather(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
