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
	// Consuming, when set, is told true each time the runner starts
	// consuming (the consumer exists and fetches) and false when it stops
	// (the drain, or a consumer the server stopped): the worker's readiness.
	Consuming func(on bool)
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
	// durable names the consumer in errors and logs.
	durable string
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
	return &Runner{cfg: cfg, tracer: cfg.TracerProvider.Tracer(TracerName), durable: cfg.Consumer.ConsumerConfig().Durable}, nil
}

// Run consumes until ctx ends, then drains: it stops fetching, lets the
// jobs already handed out finish and be acked, and returns nil.
//
// Consuming outlives NATS trouble. Creating the durable consumer is
// retried every RetryConsumerEvery while it fails (a NATS server
// restarting, a cluster still electing), and a consumer the server stops
// (deleted, or lost with its stream) is created again. A worker that
// returned instead stayed up without taking a job: its relay and
// reconciler went on, so every job waited until the process restarted
// (the NATS-restart case of testproc's TestFaults failed so in CI when the
// restart fell on the worker's start). Only a closed NATS connection,
// which never comes back, ends Run early, with an error wrapping
// nats.ErrConnectionClosed.
func (r *Runner) Run(ctx context.Context) error {
	// Work outlives ctx during the drain, bounded by DrainTimeout.
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	sem := make(chan struct{}, r.cfg.Concurrency)
	var wg sync.WaitGroup
	handle := func(msg jetstream.Msg) {
		sem <- struct{}{} // the Consume callback runs one at a time: block here, bounded
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			r.process(workCtx, msg)
		}()
	}
	var err error
	var stopped <-chan struct{} // the consumer being drained, if any
	for err == nil {
		var consumed jetstream.ConsumeContext
		if consumed, err = r.consume(ctx, handle); err != nil {
			break
		}
		r.consuming(true)
		stopped = consumed.Closed()
		select {
		case <-ctx.Done():
			consumed.Drain()
			err = ctx.Err()
		case <-stopped:
			stopped = nil
			if r.cfg.JS.Conn().IsClosed() {
				err = fmt.Errorf("consumer %s: %w", r.durable, nats.ErrConnectionClosed)
			} else {
				r.cfg.Logger.Warn("the jobs consumer stopped; creating it again", slog.String("consumer", r.durable))
			}
		}
		r.consuming(false)
	}
	r.drain(stopped, &wg, cancelWork)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// RetryConsumerEvery is the wait between two attempts to create the jobs
// consumer (Run).
const RetryConsumerEvery = time.Second

// consume creates the durable consumer and starts consuming with handle,
// retrying until it can or ctx ends (ctx's error). A closed connection is
// not retried.
func (r *Runner) consume(ctx context.Context, handle jetstream.MessageHandler) (jetstream.ConsumeContext, error) {
	for {
		cc, err := r.startConsuming(ctx, handle)
		if err == nil {
			return cc, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if r.cfg.JS.Conn().IsClosed() {
			return nil, fmt.Errorf("consumer %s: %w", r.durable, nats.ErrConnectionClosed)
		}
		r.cfg.Logger.Warn("cannot consume jobs yet; retrying", slog.String("consumer", r.durable), slog.Any("error", err))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(RetryConsumerEvery):
		}
	}
}

// startConsuming is one attempt of consume.
func (r *Runner) startConsuming(ctx context.Context, handle jetstream.MessageHandler) (jetstream.ConsumeContext, error) {
	cons, err := r.cfg.JS.CreateOrUpdateConsumer(ctx, stream.Jobs, r.cfg.Consumer.ConsumerConfig())
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", r.durable, err)
	}
	consumed, err := cons.Consume(handle,
		jetstream.PullMaxMessages(r.cfg.Concurrency),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			if !errors.Is(err, jetstream.ErrNoHeartbeat) {
				r.cfg.Logger.Debug("consume", slog.String("consumer", r.durable), slog.Any("error", err))
			}
		}))
	if err != nil {
		return nil, fmt.Errorf("consumer %s: consume: %w", r.durable, err)
	}
	return consumed, nil
}

// drain waits, at most DrainTimeout, for consuming to stop (stopped; nil
// when it already has) and the jobs handed out to finish; past it their
// work is cancelled (they are nak'd) and waited for.
func (r *Runner) drain(stopped <-chan struct{}, wg *sync.WaitGroup, cancelWork context.CancelFunc) {
	done := make(chan struct{})
	go func() {
		if stopped != nil {
			<-stopped
		}
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(r.cfg.DrainTimeout):
		cancelWork()
		<-done
	}
}

// consuming tells RunnerConfig.Consuming, when set.
func (r *Runner) consuming(on bool) {
	if r.cfg.Consuming != nil {
		r.cfg.Consuming(on)
	}
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
