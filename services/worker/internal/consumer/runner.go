package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/services/worker/internal/job"
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
}

// Runner consumes every kind of job (jobs.>) with one bounded pool and
// dispatches each by its subject's kind.
type Runner struct {
	cfg RunnerConfig
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
	return &Runner{cfg: cfg}, nil
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
// apply the one decision.
func (r *Runner) process(ctx context.Context, msg jetstream.Msg) {
	start := time.Now()
	delivered := uint64(1)
	if md, err := msg.Metadata(); err == nil {
		delivered = md.NumDelivered
	}
	j, err := job.Decode(msg.Data())
	if err == nil {
		err = r.work(ctx, j, msg)
	}
	kind := j.Kind
	if kind == "" {
		kind = job.Kind(subjectKind(msg.Subject()))
	}
	d := Decide(err, delivered, stream.MaxDeliver)
	log := r.cfg.Logger.With(slog.String("kind", string(kind)), slog.String("trip_id", j.TripID.String()),
		slog.String("correlation_id", j.RequestEventID.String()), slog.Uint64("delivery", delivered), slog.String("action", d.Action.String()))
	switch d.Action {
	case Ack:
		err = msg.DoubleAck(ctx)
	case Retry:
		log.Info("job failed; retrying", slog.Any("error", err), slog.Duration("delay", d.Delay))
		err = msg.NakWithDelay(d.Delay)
	case Fail:
		log.Warn("job failed; recording the failure", slog.Any("error", err))
		if ferr := r.cfg.Handler.RecordFailure(ctx, j, err, d.Retryable); ferr != nil && Decide(ferr, 0, 0).Action != Ack {
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

// subjectKind is the kind token of a job subject (jobs.<kind>.<tripID>).
func subjectKind(subject string) string {
	parts := strings.Split(subject, ".")
	if len(parts) != 3 || parts[0] != job.SubjectPrefix {
		return ""
	}
	return parts[1]
}
