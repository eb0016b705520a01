package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
)

// Handler is the work behind a runner (Workers implements it).
type Handler interface {
	Handle(ctx context.Context, j job.Job, progress func()) error
	RecordFailure(ctx context.Context, j job.Job, cause error, retryable bool) error
}

// RunnerConfig shapes the worker's one durable consumer on JOBS.
type RunnerConfig struct {
	JS      jetstream.JetStream
	Handler Handler
	// Concurrency is the pool size and the client prefetch (≈ local
	// concurrency: the default 500 prefetch causes redelivery storms).
	Concurrency int
	Consumer    stream.ConsumerOptions
	// DrainTimeout bounds how long in-flight jobs may run after Run's
	// context ended (default 30 s); past it they are cancelled and nak'd.
	DrainTimeout time.Duration
	Logger       *slog.Logger
	// Observe, when set, is told each job's outcome (metrics).
	Observe func(k job.Kind, a Action, d time.Duration)
	// TracerProvider makes each delivery's consumer span, a child of the
	// message's traceparent (default the otel global provider). The
	// results the job appends carry its context (tripstore).
	TracerProvider trace.TracerProvider
}

// Runner consumes every kind of job (jobs.>) with one bounded pool and
// dispatches each by its subject's kind.
type Runner struct {
	cfg    RunnerConfig
	tracer trace.Tracer
}

// NewRunner validates cfg.
func NewRunner(cfg RunnerConfig) (*Runner, error) {
	switch {
	case cfg.JS == nil:
		return nil, fmt.Errorf("consumer: RunnerConfig.JS is nil")
	case cfg.Handler == nil:
		return nil, fmt.Errorf("consumer: RunnerConfig.Handler is nil")
	case cfg.Concurrency < 1 || cfg.Concurrency > 256:
		return nil, fmt.Errorf("consumer: RunnerConfig.Concurrency %d is outside 1..256", cfg.Concurrency)
	}
	if err := cfg.Consumer.Validate(); err != nil {
		return nil, err
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.TracerProvider == nil {
		cfg.TracerProvider = otel.GetTracerProvider()
	}
	return &Runner{cfg: cfg, tracer: cfg.TracerProvider.Tracer(TracerName)}, nil
}

// Run consumes until ctx ends, then drains: it stops fetching, lets the
// jobs already handed out finish and be acked, and returns.
func (r *Runner) Run(ctx context.Context) error {
	cc := r.cfg.Consumer.ConsumerConfig()
	cons, err := r.cfg.JS.CreateOrUpdateConsumer(ctx, stream.Jobs, cc)
	if err != nil {
		return fmt.Errorf("consumer %s: %w", cc.Durable, err)
	}
	// Work outlives ctx during the drain, bounded by DrainTimeout.
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	sem := make(chan struct{}, r.cfg.Concurrency)
	var wg sync.WaitGroup
	consumed, err := cons.Consume(func(msg jetstream.Msg) {
		sem <- struct{}{} // the Consume callback runs one at a time: block here, bounded
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			r.process(workCtx, msg)
		}()
	},
		jetstream.PullMaxMessages(r.cfg.Concurrency),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			if !errors.Is(err, jetstream.ErrNoHeartbeat) {
				r.cfg.Logger.Debug("consume", slog.String("consumer", cc.Durable), slog.Any("error", err))
			}
		}))
	if err != nil {
		return fmt.Errorf("consumer %s: consume: %w", cc.Durable, err)
	}
	<-ctx.Done()
	consumed.Drain()
	done := make(chan struct{})
	go func() {
		<-consumed.Closed()
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(r.cfg.DrainTimeout):
		cancelWork()
		<-done
	}
	return nil
}

// process runs one message: decode, work with InProgress heartbeats, and
// settle its fate (Settle).
func (r *Runner) process(ctx context.Context, msg jetstream.Msg) {
	start := time.Now()
	delivered := uint64(1)
	if md, err := msg.Metadata(); err == nil {
		delivered = md.NumDelivered
	}
	j, err := job.Decode(msg.Data())
	j.At = requestedAt(msg)
	kind := j.Kind
	if kind == "" {
		kind = job.Kind(subjectKind(msg.Subject()))
	}
	ctx, span := r.startSpan(ctx, msg, j, kind, delivered)
	defer span.End()
	if err == nil {
		err = r.work(ctx, j, msg)
	}
	d := Settle(err, delivered, stream.MaxDeliver)
	span.SetAttributes(attribute.String("roadbook.job.action", d.Action.String()))
	if err != nil && d.Action != Ack {
		span.SetStatus(codes.Error, err.Error())
	}
	attrs := []any{slog.String("kind", string(kind)), slog.String("trip_id", j.TripID.String()),
		slog.String("correlation_id", j.RequestEventID.String()), slog.Uint64("delivery", delivered), slog.String("action", d.Action.String())}
	if sc := span.SpanContext(); sc.HasTraceID() {
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()))
	}
	log := r.cfg.Logger.With(attrs...)
	switch d.Action {
	case Ack:
		log.Info("job done", slog.Duration("duration", time.Since(start)))
		err = msg.DoubleAck(ctx)
	case Retry:
		log.Info("job failed; retrying", slog.Any("error", err), slog.Duration("delay", d.Delay))
		err = msg.NakWithDelay(d.Delay)
	case Fail:
		log.Warn("job failed; recording the failure", slog.Any("error", err))
		if ferr := r.cfg.Handler.RecordFailure(ctx, j, err, d.Retryable); ferr != nil && Settle(ferr, 0, 0).Action != Ack {
			log.Error("recording the failure failed; retrying the job", slog.Any("error", ferr))
			err = msg.NakWithDelay(retryDelay(delivered))
			break
		}
		err = msg.DoubleAck(ctx) // the work queue deletes it
	case Drop:
		log.Error("unreadable job dropped", slog.Any("error", err))
		err = msg.Term()
	}
	if err != nil {
		log.Warn("settling the job message failed (it will be redelivered)", slog.Any("error", err))
	}
	if r.cfg.Observe != nil {
		r.cfg.Observe(kind, d.Action, time.Since(start))
	}
}

// TracerName is the instrumentation scope of the job consumer's spans.
const TracerName = "github.com/roadbook/roadbook/services/worker/consumer"

// startSpan continues the trace of the message's traceparent header (set
// by the relay from the requesting event's metadata) with the job's
// consumer span.
func (r *Runner) startSpan(ctx context.Context, msg jetstream.Msg, j job.Job, kind job.Kind, delivered uint64) (context.Context, trace.Span) {
	if h := msg.Headers(); h != nil {
		ctx = propagation.TraceContext{}.Extract(ctx, natsCarrier(h))
	}
	return r.tracer.Start(ctx, "jobs."+string(kind)+" process",
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.destination.name", msg.Subject()),
			attribute.String("roadbook.job.kind", string(kind)),
			attribute.String("roadbook.trip_id", j.TripID.String()),
			attribute.String("roadbook.correlation_id", j.RequestEventID.String()),
			attribute.Int64("roadbook.job.delivery", int64(delivered)),
		))
}

// natsCarrier reads NATS headers for the propagator with their exact
// (case-sensitive) keys.
type natsCarrier nats.Header

func (c natsCarrier) Get(key string) string { return nats.Header(c).Get(key) }
func (c natsCarrier) Set(key, value string) { nats.Header(c).Set(key, value) }
func (c natsCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// work runs the handler while a ticker tells JetStream it is in progress.
func (r *Runner) work(ctx context.Context, j job.Job, msg jetstream.Msg) error {
	if k := subjectKind(msg.Subject()); k != string(j.Kind) {
		return fmt.Errorf("%w: a %s job on subject %s", job.ErrInvalidJob, j.Kind, msg.Subject())
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(r.cfg.Consumer.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	var last time.Time
	progress := func() {
		if time.Since(last) > r.cfg.Consumer.AckWait/10 {
			last = time.Now()
			_ = msg.InProgress()
		}
	}
	return r.cfg.Handler.Handle(ctx, j, progress)
}

// requestedAt is the stream version of the event that requested the job,
// from the header the relay sets (0 when absent or unreadable: the job then
// reads its trip, as any job did before).
func requestedAt(msg jetstream.Msg) int64 {
	h := msg.Headers()
	if h == nil {
		return 0
	}
	v, err := strconv.ParseInt(h.Get(relay.HeaderStreamVersion), 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// subjectKind is the kind token of a job subject (jobs.<kind>.<tripID>).
func subjectKind(subject string) string {
	parts := strings.Split(subject, ".")
	if len(parts) != 3 || parts[0] != job.SubjectPrefix {
		return ""
	}
	return parts[1]
}
