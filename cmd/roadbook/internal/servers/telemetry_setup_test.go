package servers

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSetupTracing sets the process environment, so it does not run in
// parallel.
func TestSetupTracing(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	ctx := context.Background()

	t.Run("without an OTLP endpoint nothing is recorded", func(t *testing.T) {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
		t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
		tr, err := setupTracing(ctx, "roadbook-test", log)
		require.NoError(t, err)
		require.False(t, tr.Exporting)
		_, span := tr.Provider.Tracer("test").Start(ctx, "op")
		require.False(t, span.SpanContext().IsValid(), "a no-op provider makes no trace ids")
		span.End()
		require.NoError(t, tr.Shutdown(ctx))
	})

	t.Run("with OTEL_EXPORTER_OTLP_ENDPOINT spans are posted there over OTLP/HTTP", func(t *testing.T) {
		var mu sync.Mutex
		var paths []string
		var bodies int
		collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			paths = append(paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
			bodies += len(body)
			mu.Unlock()
			w.Header().Set("Content-Type", "application/x-protobuf")
		}))
		defer collector.Close()
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
		t.Setenv("OTEL_SDK_DISABLED", "")
		tr, err := setupTracing(ctx, "roadbook-test", log)
		require.NoError(t, err)
		require.True(t, tr.Exporting)
		_, span := tr.Provider.Tracer("test").Start(ctx, "op")
		require.True(t, span.SpanContext().IsValid())
		span.End()
		require.NoError(t, tr.Shutdown(ctx), "shutdown flushes the batch")
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, []string{"POST /v1/traces application/x-protobuf"}, paths)
		require.Positive(t, bodies)
	})

	t.Run("OTEL_SDK_DISABLED turns a configured exporter off", func(t *testing.T) {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
		t.Setenv("OTEL_SDK_DISABLED", "true")
		tr, err := setupTracing(ctx, "roadbook-test", log)
		require.NoError(t, err)
		require.False(t, tr.Exporting)
	})
}
