package relay_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

func TestRelayTelemetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	es := testkit.Store(t)
	_, nc := testkit.NATS(t)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.NoError(t, stream.Ensure(ctx, js, stream.DefaultOptions()))

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(ctx) })

	// In flight (acked, cursor not saved yet), the relay's lag is the age of
	// the batch's oldest event; lagSeen records it against that event's time.
	var mu sync.Mutex
	var lagSeen []time.Duration
	var relayed []eventstore.RecordedEvent
	var r *relay.Relay
	l, err := relay.OpenLease(ctx, js, relay.DefaultLeaseBucket, "a", time.Second)
	require.NoError(t, err)
	r, err = relay.New(relay.Config{Store: es, JS: js, Lease: l, PollInterval: 20 * time.Millisecond, TracerProvider: tp,
		AfterPublish: func(batch []eventstore.RecordedEvent) {
			mu.Lock()
			defer mu.Unlock()
			lagSeen = append(lagSeen, r.Lag(batch[0].RecordedAt.Add(7*time.Second)))
		},
		OnRelayed: func(batch []eventstore.RecordedEvent) {
			mu.Lock()
			defer mu.Unlock()
			relayed = append(relayed, batch...)
		}})
	require.NoError(t, err)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); require.NoError(t, r.Run(rctx)) }()
	t.Cleanup(func() { cancel(); <-done })

	trips := tripstore.New(es, nil)
	up, err := pipelinetest.Store(ctx, trips, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
	require.NoError(t, err)
	tctx, call := tp.Tracer("test").Start(ctx, "api call")
	tripID, err := pipelinetest.CreateTrip(tctx, trips, "rider", up, trip.SettingsPatch{})
	call.End()
	require.NoError(t, err)
	require.Eventually(t, func() bool { return r.Published() == 2 }, 10*time.Second, 10*time.Millisecond)

	t.Run("the lag is the in-flight batch's age and 0 once relayed", func(t *testing.T) {
		mu.Lock()
		defer mu.Unlock()
		require.NotEmpty(t, lagSeen)
		for _, d := range lagSeen {
			require.Equal(t, 7*time.Second, d)
		}
		require.Zero(t, r.Lag(time.Now().Add(time.Hour)), "caught up")
		require.Len(t, relayed, 2, "OnRelayed saw TripCreated and RouteImported")
	})

	t.Run("the job message's traceparent is the relay's producer span, a child of the appending call", func(t *testing.T) {
		st, err := js.Stream(ctx, stream.Jobs)
		require.NoError(t, err)
		msg, err := st.GetLastMsgForSubject(ctx, job.Subject(job.KindStages, tripID))
		require.NoError(t, err)

		var producer sdktrace.ReadOnlySpan
		for _, s := range rec.Ended() {
			if s.Name() == "relay RouteImported" {
				producer = s
			}
		}
		require.NotNil(t, producer)
		require.Equal(t, trace.SpanKindProducer, producer.SpanKind())
		require.Equal(t, call.SpanContext().TraceID(), producer.SpanContext().TraceID())
		require.Equal(t, call.SpanContext().SpanID(), producer.Parent().SpanID())
		require.Equal(t, "00-"+producer.SpanContext().TraceID().String()+"-"+producer.SpanContext().SpanID().String()+"-01",
			msg.Header.Get(relay.HeaderTraceparent))
		require.Len(t, msg.Header.Values(relay.HeaderTraceparent), 1, "one traceparent, under its exact name")
	})
}
