package tripstore_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/tripstore"
)

func TestTraceMetadata(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(ctx) })

	created := func(t *testing.T, ctx context.Context, md eventstore.Metadata) eventstore.RecordedEvent {
		t.Helper()
		s := newStore(t)
		id := uuid.New()
		_, err := s.Execute(ctx, tripstore.User("ann"), id, trip.Create{SourceURL: komootURL, Title: "Alps"}, tripstore.Options{Metadata: md})
		require.NoError(t, err)
		evs, err := s.Events().ReadStream(ctx, tripstore.StreamID(id), 0, 10)
		require.NoError(t, err)
		require.NotEmpty(t, evs)
		return evs[0]
	}

	t.Run("an append inside a span records the span's traceparent", func(t *testing.T) {
		t.Parallel()
		sctx, span := tp.Tracer("test").Start(ctx, "call")
		defer span.End()
		ev := created(t, sctx, eventstore.Metadata{Actor: "ann", CorrelationID: "c-1"})
		sc := span.SpanContext()
		require.Equal(t, "00-"+sc.TraceID().String()+"-"+sc.SpanID().String()+"-01", ev.Metadata.Trace[tripstore.TraceKeyParent])
		require.Equal(t, "c-1", ev.Metadata.CorrelationID, "the rest of the metadata is kept")

		back := trace.SpanContextFromContext(tripstore.TraceContext(ctx, ev.Metadata))
		require.True(t, back.IsRemote())
		require.Equal(t, sc.TraceID(), back.TraceID(), "a consumer continues the recorded trace")
		require.Equal(t, sc.SpanID(), back.SpanID())
	})

	t.Run("a trace the caller set is kept", func(t *testing.T) {
		t.Parallel()
		sctx, span := tp.Tracer("test").Start(ctx, "call")
		defer span.End()
		own := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
		ev := created(t, sctx, eventstore.Metadata{Trace: map[string]string{"traceparent": own}})
		require.Equal(t, own, ev.Metadata.Trace["traceparent"])
	})

	t.Run("an append outside any span records no trace", func(t *testing.T) {
		t.Parallel()
		ev := created(t, ctx, eventstore.Metadata{Actor: "ann"})
		require.Empty(t, ev.Metadata.Trace)
		require.Equal(t, ctx, tripstore.TraceContext(ctx, ev.Metadata), "no trace: the context is unchanged")
	})
}
