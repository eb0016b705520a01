package servers

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// tracing is a process's TracerProvider and how to flush it on exit.
type tracing struct {
	Provider trace.TracerProvider
	// Exporting reports whether spans leave the process (OTLP configured).
	Exporting bool
	shutdown  func(context.Context) error
}

// Shutdown flushes the spans still batched (a no-op without an exporter).
func (t tracing) Shutdown(ctx context.Context) error {
	if t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// setupTracing builds the process's TracerProvider from the standard
// OpenTelemetry variables, so an operator configures traces the way they
// configure every other service: with OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, spans are batched to that OTLP/HTTP
// collector (OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT,
// OTEL_TRACES_SAMPLER are honoured by the SDK); unset, or with
// OTEL_SDK_DISABLED=true, nothing is recorded or sent (a no-op provider).
// OTEL_SERVICE_NAME overrides service (e.g. "roadbook-api"). The provider is
// handed to the services' Configs rather than installed as the otel global,
// so tests and one-process mode never share one by accident; the W3C Trace
// Context propagator is installed globally for any library that asks.
func setupTracing(ctx context.Context, service string, log *slog.Logger) (tracing, error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if disabled, _ := strconv.ParseBool(os.Getenv("OTEL_SDK_DISABLED")); disabled ||
		(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "") {
		return tracing{Provider: noop.NewTracerProvider()}, nil
	}
	exp, err := otlptracehttp.New(ctx) // endpoint, headers, timeout, TLS: from OTEL_EXPORTER_OTLP_*
	if err != nil {
		return tracing{}, fmt.Errorf("OTLP trace exporter (OTEL_EXPORTER_OTLP_ENDPOINT): %w", err)
	}
	if name := strings.TrimSpace(os.Getenv("OTEL_SERVICE_NAME")); name != "" {
		service = name
	}
	res, err := resource.Merge(resource.Default(), resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName(service)))
	if err != nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	log.Info("exporting traces over OTLP/HTTP", slog.String("service", service))
	return tracing{Provider: tp, Exporting: true, shutdown: tp.Shutdown}, nil
}

// flushTracing sends the spans still batched at exit (bounded: a collector
// that is down must not hold the shutdown).
func flushTracing(t tracing, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.Shutdown(ctx); err != nil {
		log.Warn("flushing traces failed", slog.Any("error", err))
	}
}
