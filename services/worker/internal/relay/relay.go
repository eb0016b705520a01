package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/tripstore"
)

// Header names of relayed messages (wire convention).
const (
	HeaderEventType     = "Roadbook-Event-Type"
	HeaderStream        = "Roadbook-Stream"
	HeaderStreamVersion = "Roadbook-Stream-Version"
	HeaderPosition      = "Roadbook-Position"
	HeaderTraceparent   = "traceparent"
)

// DefaultReader is the cursor name of the relay.
const DefaultReader = "relay"

// ErrInvalidConfig is matched by every refusal of a relay Config.
var ErrInvalidConfig = errors.New("relay: invalid config")

// Config shapes a relay.
type Config struct {
	Store eventstore.Store
	JS    jetstream.JetStream
	// Lease elects the one active relay.
	Lease *Lease
	// Reader names the saved cursor (DefaultReader when empty).
	Reader string
	// BatchSize bounds one feed read and one publish round (default 256).
	BatchSize int
	// PollInterval is how often the feed is read when nothing woke the
	// relay (default 250 ms); with an in-process Notifier and Remote it
	// is only a safety net.
	PollInterval time.Duration
	// Remote, when set, wakes the relay on commits made through other
	// processes' stores (the API, other worker replicas), which the store's
	// own Notifier cannot see: a feedwake.Listener. Without it those
	// commits wait for the next poll.
	Remote eventstore.Notifier
	// AckTimeout bounds the wait for JetStream's publish acks (default 10 s).
	AckTimeout time.Duration
	// CursorInterval is how long the relay may hand events on without
	// saving its cursor (default 1 s; at most MaxCursorInterval). Saving
	// after every batch cost a PostgreSQL write per append relayed, a third
	// of the relay's round trips in the pipeline hop; saving at most once
	// an interval costs one a second under any load. The price is paid only
	// on a crash or a lost lease: the next holder reads again what was
	// relayed since the last save, leaves out what EVENTS already holds
	// (eventsHead) and publishes the jobs again, which JOBS' dedup window
	// (stream.DefaultJobsDuplicates) drops, as after a crash between an
	// ack and a save.
	CursorInterval time.Duration
	Logger         *slog.Logger
	// AfterPublish, when set, runs after a batch was acked and before its
	// cursor is saved: the fault tests kill the process there.
	AfterPublish func(batch []eventstore.RecordedEvent)
	// OnSaved, when set, runs after a cursor was saved, with the number of
	// events relayed since the save before (tests).
	OnSaved func(n int, c eventstore.Cursor)
	// OnRelayed, when set, runs with every batch once JetStream acked all
	// of it (the relayed and failure-event counters).
	OnRelayed func(batch []eventstore.RecordedEvent)
	// Observe, when set, is handed every page read, before its messages
	// are sent: the worker's trip store folds it into its state cache
	// (tripstore.Store.Observe), so the job a message sets off finds its
	// trip folded in this process: handed the page before any of its
	// messages goes out, no job it sets off can reach a worker of this
	// process first. The events are committed whatever JetStream answers;
	// Observe must not keep the page's slices.
	Observe func(eventstore.FeedPage)
	// TracerProvider makes the relay's producer span per traced event, a
	// child of the span that appended it (default the otel global
	// provider). The span's context travels on as the messages'
	// traceparent header.
	TracerProvider trace.TracerProvider
}

// DefaultCursorInterval and MaxCursorInterval bound Config.CursorInterval.
// The maximum is a tenth of the shortest JOBS dedup window the streams
// accept (one minute, stream.MinJobsDuplicates): the job messages a crash
// publishes again must fall well inside it.
const (
	DefaultCursorInterval = time.Second
	MaxCursorInterval     = 6 * time.Second
)

// Relay tails the feed into JetStream.
type Relay struct {
	cfg      Config
	tracer   trace.Tracer
	notifier eventstore.Notifier
	// pager, when the store has one, says when committed events wait
	// behind a transaction still running (eventstore.FeedPage.HeldBack).
	pager eventstore.FeedPager
	// prefetcher, when the store has one, reads the next page in the
	// round trip of the next append through it (eventstore.FeedPrefetcher).
	prefetcher eventstore.FeedPrefetcher
	active     atomic.Bool
	published  atomic.Int64
	// pendingSince is when the oldest event read but not yet relayed was
	// recorded (unix nanoseconds; 0: caught up), for Lag.
	pendingSince atomic.Int64
}

// New validates cfg and returns a relay.
func New(cfg Config) (*Relay, error) {
	switch {
	case cfg.Store == nil:
		return nil, fmt.Errorf("%w: Store is nil", ErrInvalidConfig)
	case cfg.JS == nil:
		return nil, fmt.Errorf("%w: JS is nil", ErrInvalidConfig)
	case cfg.Lease == nil:
		return nil, fmt.Errorf("%w: Lease is nil (one relay must be active at a time)", ErrInvalidConfig)
	case cfg.BatchSize < 0 || cfg.BatchSize > 10000:
		return nil, fmt.Errorf("%w: BatchSize %d is outside 0..10000", ErrInvalidConfig, cfg.BatchSize)
	case cfg.CursorInterval < 0 || cfg.CursorInterval > MaxCursorInterval:
		return nil, fmt.Errorf("%w: CursorInterval %s is outside 0..%s (the jobs a crash publishes again must fall well inside JOBS' dedup window)",
			ErrInvalidConfig, cfg.CursorInterval, MaxCursorInterval)
	}
	if cfg.Reader == "" {
		cfg.Reader = DefaultReader
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = 256
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 250 * time.Millisecond
	}
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = 10 * time.Second
	}
	if cfg.CursorInterval == 0 {
		cfg.CursorInterval = DefaultCursorInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.TracerProvider == nil {
		cfg.TracerProvider = otel.GetTracerProvider()
	}
	r := &Relay{cfg: cfg, tracer: cfg.TracerProvider.Tracer(TracerName)}
	r.notifier, _ = cfg.Store.(eventstore.Notifier)
	r.pager, _ = cfg.Store.(eventstore.FeedPager)
	r.prefetcher, _ = cfg.Store.(eventstore.FeedPrefetcher)
	return r, nil
}

// Active reports whether this relay holds the lease now.
func (r *Relay) Active() bool { return r.active.Load() }

// Published is the number of events this relay handed on (acked).
func (r *Relay) Published() int64 { return r.published.Load() }

// Lag is how far behind the event store this relay is at now: the age of
// the oldest event it has read but not yet relayed (published and acked),
// 0 when it is caught up or standing by. It keeps
// growing while JetStream refuses a batch, which is what the relay-lag
// alert watches (roadbook_relay_lag_seconds).
func (r *Relay) Lag(now time.Time) time.Duration {
	since := r.pendingSince.Load()
	if since == 0 {
		return 0
	}
	return max(now.Sub(time.Unix(0, since)), 0)
}

// Run campaigns for the lease and relays while holding it, until ctx ends.
// A lost lease sends it back to campaigning; it returns nil on ctx's end.
func (r *Relay) Run(ctx context.Context) error {
	for {
		if err := r.cfg.Lease.Acquire(ctx); err != nil {
			return nil // ctx ended while standing by
		}
		r.active.Store(true)
		r.cfg.Logger.Info("relay active")
		lctx, cancel := context.WithCancel(ctx)
		lost := make(chan error, 1)
		go func() { lost <- r.cfg.Lease.Keep(lctx); cancel() }()
		unsaved := r.tail(lctx)
		cancel()
		err := <-lost
		r.active.Store(false)
		r.pendingSince.Store(0) // the next holder reports the lag
		if ctx.Err() != nil {
			rctx, c := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			if unsaved.n > 0 && err == nil {
				// Shutting down with the lease still held: save what was
				// relayed, so the next holder hands nothing on again.
				r.save(rctx, &unsaved)
			}
			r.cfg.Lease.Release(rctx)
			c()
			return nil
		}
		r.cfg.Logger.Warn("relay lease lost; standing by", slog.Any("error", err))
	}
}

// heldBackRetry is the first wait before reading again when the feed held
// committed events back; it doubles while they stay held, up to
// heldBackMaxRetry (or the poll interval, if shorter): a transaction left
// open holds the feed until it ends, and the relay then reads at most about
// 50 times a second (one small feed read each) and hands the events on
// within 20 ms of its end. With the poll interval as the cap, a hop held a while
// by another process's transaction waited up to 250 ms more after it ended.
const (
	heldBackRetry    = 250 * time.Microsecond
	heldBackMaxRetry = 20 * time.Millisecond
)

// tail relays batches until ctx ends and returns the cursor it relayed to
// but did not save. Errors are retried: the cursor only moves after acks,
// so a retry hands the batch on again; what EVENTS already holds is skipped
// (eventsHead) and the JOBS copies are dropped by JOBS' dedup window.
//
// Between batches it waits for the first of: a commit through this
// process's store (the Notifier), another process's commit announced
// (Config.Remote), the poll interval (the safety net), the time the cursor
// is due to be saved (CursorInterval), or — when the last read said
// committed events are held back behind a transaction still running — a
// short, growing retry. Without the last, an event held back by another
// process's transaction (another replica's append, any writer on the
// cluster) waited a whole poll interval although it became readable a
// millisecond later: the p99 of the pipeline hop was the poll interval
// (docs/BENCHMARKS.md, pipeline hop).
//
// Every channel it waits on was taken before the read the wait follows, so
// a commit that read did not see wakes it. For a page an append read
// (eventstore.FeedPrefetcher) that read came before this loop's Notify:
// the page brings its own in-process channel (FeedPage.Wake), and the
// remote one is taken when the step asks for the page (stepResult).
func (r *Relay) tail(ctx context.Context) pendingCursor {
	c, err := r.loadCursor(ctx)
	if err != nil {
		return pendingCursor{}
	}
	cur := pendingCursor{cursor: c, savedAt: time.Now()}
	// head is where EVENTS stands (head.go), read before the first batch
	// and again after a failed one: what the last holder or the failed
	// attempt stored there is not handed on again.
	var head *eventsHead
	backoff := 50 * time.Millisecond
	retry := heldBackRetry
	// remote is the channel of other processes' commits for the next wait,
	// taken before the read that wait follows: at the top of the loop, or
	// (kept from the step before) when that step asked the store for the
	// next page, which an append may then read before this loop comes
	// round (stepResult.remote).
	var remote <-chan struct{}
	defer func() {
		if r.prefetcher != nil {
			r.prefetcher.PrefetchFeed(eventstore.Cursor{}, 0) // a standby asks for nothing
		}
	}()
	for ctx.Err() == nil {
		if cur.n > 0 && time.Since(cur.savedAt) >= r.cfg.CursorInterval {
			r.save(ctx, &cur)
		}
		var wake <-chan struct{}
		if r.notifier != nil {
			wake = r.notifier.Notify() // before the read: no commit falls between
		}
		if remote == nil && r.cfg.Remote != nil {
			remote = r.cfg.Remote.Notify()
		}
		res, err := r.step(ctx, cur.cursor, &head)
		if err != nil {
			head, remote = nil, nil
			if ctx.Err() == nil {
				r.cfg.Logger.Warn("relay batch failed; retrying", slog.Any("error", err), slog.Duration("backoff", backoff))
			}
			sleep(ctx, backoff)
			backoff = min(backoff*2, 5*time.Second)
			continue
		}
		backoff = 50 * time.Millisecond
		cur.cursor, cur.n = res.next, cur.n+res.n
		if res.wake != nil {
			wake = res.wake // the page was read before this loop's Notify
		}
		if res.n == r.cfg.BatchSize {
			remote = res.remote
			continue // more is waiting
		}
		wait := r.cfg.PollInterval
		if res.held {
			wait = min(retry, r.cfg.PollInterval)
			retry = min(retry*2, heldBackMaxRetry)
		} else {
			retry = heldBackRetry
		}
		if cur.n > 0 {
			wait = max(min(wait, r.cfg.CursorInterval-time.Since(cur.savedAt)), 0)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-wake:
		case <-remote:
		case <-t.C:
		}
		t.Stop()
		remote = res.remote
	}
	return cur
}

// pendingCursor is the cursor the relay has handed events on to, the
// number of events relayed since it was last saved, and when that was.
type pendingCursor struct {
	cursor  eventstore.Cursor
	n       int
	savedAt time.Time
}

// save records the cursor (the events before it are acked by JetStream). A
// failed save is only logged: the cursor stays pending and is saved at the
// next due time; until then a crash hands on again a little more.
func (r *Relay) save(ctx context.Context, cur *pendingCursor) {
	if err := r.cfg.Store.SaveCursor(ctx, r.cfg.Reader, cur.cursor); err != nil {
		if ctx.Err() == nil {
			r.cfg.Logger.Warn("relay cannot save its cursor; retrying later", slog.Any("error", err))
		}
		cur.savedAt = time.Now()
		return
	}
	if r.cfg.OnSaved != nil {
		r.cfg.OnSaved(cur.n, cur.cursor)
	}
	cur.n, cur.savedAt = 0, time.Now()
}

// read reads one batch of the feed after cursor, with each event's feed
// cursor, and whether the store held committed events back (false for a
// store that never does).
func (r *Relay) read(ctx context.Context, cursor eventstore.Cursor) (eventstore.FeedPage, error) {
	if r.pager != nil {
		p, err := r.pager.ReadFeedPage(ctx, cursor, r.cfg.BatchSize)
		if err == nil && len(p.Cursors) != len(p.Events) {
			return eventstore.FeedPage{Next: cursor}, fmt.Errorf("relay: the store's feed page has %d events and %d cursors (eventstore.FeedPage.Cursors)", len(p.Events), len(p.Cursors))
		}
		return p, err
	}
	batch, next, err := r.cfg.Store.ReadFeed(ctx, cursor, r.cfg.BatchSize)
	// A store without a pager (the embedded one) has one writer at a
	// time and orders its feed by position alone: an event's cursor is
	// its position, under the page's transaction id (zero there).
	cursors := make([]eventstore.Cursor, len(batch))
	for i, ev := range batch {
		cursors[i] = eventstore.Cursor{TxID: next.TxID, Position: ev.GlobalPosition}
	}
	return eventstore.FeedPage{Events: batch, Next: next, Cursors: cursors}, err
}

func (r *Relay) loadCursor(ctx context.Context) (eventstore.Cursor, error) {
	for {
		c, err := r.cfg.Store.LoadCursor(ctx, r.cfg.Reader)
		if err == nil {
			return c, nil
		}
		r.cfg.Logger.Warn("relay cannot load its cursor; retrying", slog.Any("error", err))
		if !sleep(ctx, time.Second) {
			return c, ctx.Err()
		}
	}
}

// stepResult is what one step did: the cursor after the batch and its
// size, whether the read found committed events held back, and the
// wake-up channels the read leaves the loop (see tail).
type stepResult struct {
	next eventstore.Cursor
	n    int
	held bool
	// wake, when set, replaces the loop's in-process channel for the
	// wait after this step: the page was read by an append before the
	// loop took its own (eventstore.FeedPage.Wake).
	wake <-chan struct{}
	// remote is the other processes' channel taken when the step asked
	// the store for the next page, for the wait after the next step; nil
	// when it did not ask.
	remote <-chan struct{}
}

// step relays one batch after cursor: publish everything and await every
// ack, while still holding the lease; the caller saves the cursor it
// returns (never before the acks). *head, when nil, is read from
// JetStream first; the caller sets it to nil after a failure.
//
// As soon as the read returns, the step asks the store to read the page
// after it with the next append through it (eventstore.FeedPrefetcher), so
// that a commit made while this batch is published, or while the relay
// then waits, brings its page with it. The remote channel is taken first:
// the page such an append reads comes after it.
func (r *Relay) step(ctx context.Context, cursor eventstore.Cursor, head **eventsHead) (stepResult, error) {
	p, err := r.read(ctx, cursor)
	if err != nil {
		return stepResult{next: cursor}, fmt.Errorf("read feed: %w", err)
	}
	res := stepResult{next: p.Next, held: p.HeldBack, wake: p.Wake}
	if r.prefetcher != nil {
		if r.cfg.Remote != nil {
			res.remote = r.cfg.Remote.Notify()
		}
		r.prefetcher.PrefetchFeed(p.Next, r.cfg.BatchSize)
	}
	batch := p.Events
	if len(batch) == 0 {
		r.pendingSince.Store(0)
		return res, nil
	}
	r.pendingSince.Store(batch[0].RecordedAt.UnixNano())
	if *head == nil {
		h, err := r.readEventsHead(ctx)
		if err != nil {
			return stepResult{next: cursor}, err
		}
		*head = &h
	}
	if err := r.publish(ctx, p, *head); err != nil {
		return stepResult{next: cursor}, err
	}
	if r.cfg.AfterPublish != nil {
		r.cfg.AfterPublish(batch)
	}
	if ctx.Err() != nil {
		return stepResult{next: cursor}, ctx.Err() // lease lost: the next holder relays again
	}
	r.published.Add(int64(len(batch)))
	r.pendingSince.Store(0)
	if r.cfg.OnRelayed != nil {
		r.cfg.OnRelayed(batch)
	}
	res.n = len(batch)
	return res, nil
}

// publish sends the page's events in feed order (per-stream order holds on
// one connection) and waits for every ack. The EVENTS messages of events
// head covers are left out, and every other one expects the sequence
// before it (eventsHead); head's sequence moves on only once all were
// acked.
func (r *Relay) publish(ctx context.Context, p eventstore.FeedPage, head *eventsHead) (err error) {
	if r.cfg.Observe != nil {
		r.cfg.Observe(p) // before any job can reach a worker of this process
	}
	batch := p.Events
	futures := make([]jetstream.PubAckFuture, 0, 2*len(batch))
	seq := head.seq
	var spans []trace.Span
	defer func() {
		for _, s := range spans {
			if err != nil {
				s.SetStatus(codes.Error, err.Error())
			}
			s.End()
		}
	}()
	for i, ev := range batch {
		msgs, err := Messages(ev, p.Cursors[i])
		if err != nil {
			return err
		}
		if span := r.traceEvent(ctx, ev, msgs); span != nil {
			spans = append(spans, span)
		}
		for _, m := range msgs {
			opts := []jetstream.PublishOpt{jetstream.WithExpectStream(m.Stream)}
			if m.Stream == stream.Events {
				if head.covers(p.Cursors[i]) {
					continue // stored by the last holder or a failed attempt
				}
				opts = append(opts, jetstream.WithExpectLastSequence(seq))
				seq++
			}
			f, err := r.cfg.JS.PublishMsgAsync(m.Msg, opts...)
			if err != nil {
				return fmt.Errorf("publish %s: %w", m.Msg.Subject, err)
			}
			futures = append(futures, f)
		}
	}
	timeout := time.NewTimer(r.cfg.AckTimeout)
	defer timeout.Stop()
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("publish %s: %w", f.Msg().Subject, err)
		case <-timeout.C:
			return fmt.Errorf("publish: no ack within %s", r.cfg.AckTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	head.seq = seq
	return nil
}

// TracerName is the instrumentation scope of the relay's spans.
const TracerName = "github.com/roadbook/roadbook/services/worker/relay"

// traceEvent starts the producer span of a traced event (a child of the
// span that appended it) and sets its context as the traceparent of the
// event's messages; an untraced event gets no span (nil).
func (r *Relay) traceEvent(ctx context.Context, ev eventstore.RecordedEvent, msgs []Message) trace.Span {
	if len(msgs) == 0 {
		return nil
	}
	parent := tripstore.TraceContext(ctx, ev.Metadata)
	if !trace.SpanContextFromContext(parent).IsValid() {
		return nil
	}
	sctx, span := r.tracer.Start(parent, "relay "+ev.Type[strings.LastIndexByte(ev.Type, '.')+1:],
		trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.operation.type", "send"),
			attribute.String("messaging.message.id", ev.ID.String()),
			attribute.String("roadbook.event_type", ev.Type),
			attribute.String("roadbook.stream", string(ev.StreamID)),
		))
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(sctx, carrier)
	for _, m := range msgs {
		for k, v := range carrier { // exact keys: NATS headers are case-sensitive
			m.Msg.Header.Set(k, v)
		}
	}
	return span
}

// Message is one message to publish and the stream it must land in.
type Message struct {
	Stream string
	Msg    *nats.Msg
}

// Messages renders one event, read at feed cursor at, as what the relay
// publishes: always an EVENTS message (trip streams only: EVENTS is the
// trips' fan-out), and a JOBS message when the job table says the event
// needs work. Each carries the cursor (HeaderFeedTx, HeaderPosition).
func Messages(ev eventstore.RecordedEvent, at eventstore.Cursor) ([]Message, error) {
	tripID, ok := tripstore.TripID(ev.StreamID)
	if !ok {
		return nil, nil // not a trip stream: nobody subscribes to it
	}
	// A feed page's events come undecoded (eventstore.FeedPager): their
	// stored JSON is the message as is, and only the types the job table
	// looks into are decoded.
	data := ev.Data
	if data == nil {
		var err error
		if data, err = protojson.Marshal(ev.Payload); err != nil {
			return nil, fmt.Errorf("relay: encode %s of %s: %w", ev.Type, ev.StreamID, err)
		}
	}
	ev, err := job.Decoded(ev)
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	hdr := func(msgID string) nats.Header {
		h := nats.Header{}
		h.Set(nats.MsgIdHdr, msgID)
		h.Set(HeaderEventType, ev.Type)
		h.Set(HeaderStream, string(ev.StreamID))
		h.Set(HeaderStreamVersion, strconv.FormatInt(ev.Version, 10))
		h.Set(HeaderPosition, strconv.FormatInt(ev.GlobalPosition, 10))
		h.Set(HeaderFeedTx, strconv.FormatUint(at.TxID, 10))
		if tp := ev.Metadata.Trace[HeaderTraceparent]; tp != "" {
			h.Set(HeaderTraceparent, tp)
		}
		return h
	}
	out := []Message{{Stream: stream.Events, Msg: &nats.Msg{
		Subject: job.EventSubject(tripID, ev.Type), Data: data, Header: hdr(ev.ID.String()),
	}}}
	for _, j := range job.For(ev) {
		payload, err := j.Encode()
		if err != nil {
			return nil, err
		}
		out = append(out, Message{Stream: stream.Jobs, Msg: &nats.Msg{
			Subject: job.Subject(j.Kind, tripID), Data: payload, Header: hdr(job.MsgID(j.Kind, ev.ID)),
		}})
	}
	return out, nil
}

// sleep waits d or until ctx ends; it reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
