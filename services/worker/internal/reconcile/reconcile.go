package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/tripstore"
)

// DefaultReader is the reconciler's cursor: the low watermark of the
// requests it still watches, so a restart re-reads them.
const DefaultReader = "reconciler"

// Config shapes a reconciler.
type Config struct {
	Trips *tripstore.Store
	JS    jetstream.JetStream
	// Deadline is how long a request may stay without a terminal event
	// before its job is published again (default 2 min: above AckWait ×
	// the first retries).
	Deadline time.Duration
	// Interval between passes (default 30 s).
	Interval time.Duration
	Reader   string
	Clock    func() time.Time
	Logger   *slog.Logger
	// Relabel, when set, is asked to label again the stages of a finished
	// analysis's trip that still have no labels and no recorded
	// unavailability after the deadline: labels in flight in a worker's
	// in-memory queue die with it. attempt is distinct per call.
	Relabel func(ctx context.Context, j job.Job, attempt string, stages []trip.Stage)
}

// Reconciler watches requests and re-enqueues the stuck ones.
type Reconciler struct {
	cfg     Config
	loaded  bool
	cursor  eventstore.Cursor
	watched map[string]*item // by job.MsgID: one per request and kind
	seq     int64
}

type item struct {
	job      job.Job
	at       time.Time
	before   eventstore.Cursor // feed position just before the request
	seq      int64             // feed order, for the watermark
	requeued time.Time
	// labelled: a LabelsResolved or LabelsUnavailable caused by this
	// (analysis) request passed in the feed, so its job labelled every
	// stage it found without labels (see settles).
	labelled bool
}

// New validates cfg.
func New(cfg Config) (*Reconciler, error) {
	if cfg.Trips == nil || cfg.JS == nil {
		return nil, errors.New("reconcile: Config.Trips and Config.JS are required")
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = 2 * time.Minute
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 30 * time.Second
	}
	if cfg.Reader == "" {
		cfg.Reader = DefaultReader
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Reconciler{cfg: cfg, watched: map[string]*item{}}, nil
}

// Run passes every Interval until ctx ends.
func (r *Reconciler) Run(ctx context.Context) error {
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	for {
		if _, err := r.Pass(ctx); err != nil && ctx.Err() == nil {
			r.cfg.Logger.Warn("reconcile pass failed", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Pass reads the feed since the last pass, re-enqueues every watched request
// older than the deadline that the trip still waits for, forgets the ones
// that reached a terminal event, and saves the watermark. It returns the
// number of jobs re-enqueued.
func (r *Reconciler) Pass(ctx context.Context) (int, error) {
	es := r.cfg.Trips.Events()
	if !r.loaded {
		c, err := es.LoadCursor(ctx, r.cfg.Reader)
		if err != nil {
			return 0, fmt.Errorf("reconcile: load cursor: %w", err)
		}
		r.cursor, r.loaded = c, true
	}
	for {
		batch, next, err := readFeed(ctx, es, r.cursor)
		if err != nil {
			return 0, fmt.Errorf("reconcile: read feed: %w", err)
		}
		for _, ev := range batch {
			if ev, err = job.Decoded(ev); err != nil {
				return 0, fmt.Errorf("reconcile: %w", err)
			}
			for _, j := range job.For(ev) {
				if !job.Awaited(j.Kind) {
					continue // no terminal event to wait for: nothing can be stuck
				}
				r.seq++
				r.watched[job.MsgID(j.Kind, ev.ID)] = &item{job: j, at: ev.RecordedAt, before: r.cursor, seq: r.seq}
			}
			r.settle(ev)
		}
		r.cursor = next
		if len(batch) < 1000 {
			break
		}
	}
	now := r.cfg.Clock()
	requeued := 0
	for id, it := range r.watched {
		if now.Sub(it.at) < r.cfg.Deadline || now.Sub(it.requeued) < r.cfg.Deadline {
			continue
		}
		st, found, err := r.load(ctx, it.job)
		if err != nil {
			return requeued, err
		}
		if !found || !Waiting(st, it.job) {
			if pending := PendingLabels(st); found && it.job.Kind == job.KindAnalysis && r.cfg.Relabel != nil && len(pending) > 0 {
				it.requeued = now
				r.cfg.Relabel(ctx, it.job, "relabel:"+strconv.FormatInt(now.UnixNano(), 10), pending)
				r.cfg.Logger.Info("labelled again stages left without labels", slog.String("trip_id", it.job.TripID.String()), slog.Int("stages", len(pending)))
				continue
			}
			delete(r.watched, id)
			continue
		}
		if err := r.publish(ctx, it.job, now); err != nil {
			return requeued, err
		}
		it.requeued = now
		requeued++
		r.cfg.Logger.Info("re-enqueued a stuck job", slog.String("kind", string(it.job.Kind)),
			slog.String("trip_id", it.job.TripID.String()), slog.String("correlation_id", it.job.RequestEventID.String()))
	}
	if err := es.SaveCursor(ctx, r.cfg.Reader, r.watermark()); err != nil {
		return requeued, fmt.Errorf("reconcile: save cursor: %w", err)
	}
	return requeued, nil
}

// readFeed reads the next page of the feed, undecoded where the store can
// (eventstore.FeedPager): a pass reads every event appended in the last
// interval and needs the payloads of only the few types the job table looks
// into (job.Decoded), where decoding all of them was a third of the pass's
// CPU in the soak.
func readFeed(ctx context.Context, es eventstore.Store, after eventstore.Cursor) ([]eventstore.RecordedEvent, eventstore.Cursor, error) {
	if p, ok := es.(eventstore.FeedPager); ok {
		page, err := p.ReadFeedPage(ctx, after, 1000)
		return page.Events, page.Next, err
	}
	return es.ReadFeed(ctx, after, 1000)
}

// settle forgets the watched requests that ev shows need nothing more, so
// that a pass loads a trip only for the exceptions: a request still without
// its answer after the deadline, or an analysis whose labels may still be
// owed (Relabel). Loading every request's trip after the deadline to see that
// it was answered cost the worker a whole stream read per job (its cache has
// long dropped the trip by then), a cost that grows as the run does: 0.6 s
// of a 60-second CPU profile of the worker 1.5 minutes into the 10-minute
// soak, 1.9 s (12 %) 5 minutes in (docs/CAPACITY.md §4). What ev settles:
//
//   - TripDeleted: every request of the trip (a load would find it gone);
//   - the terminal answer of an import or a stages job, which the worker
//     records with the request's event id as causation;
//   - the terminal answer of an analysis (AnalysisCompleted or
//     AnalysisFailed caused by it) once its labels are settled too: the
//     job labels the trip's unlabelled stages before its final event, and a
//     synchronous labeler records that as LabelsResolved or
//     LabelsUnavailable caused by the request. A progressive labeler's
//     labels arrive later without that causation (they may die with the
//     worker's queue), and a job that found every stage labelled records
//     none: both stay watched, and after the deadline the pass asks the
//     trip whether labels are missing, as before. Without Relabel nothing
//     is asked about labels, so the answer alone settles the request.
func (r *Reconciler) settle(ev eventstore.RecordedEvent) {
	if ev.Type == tripDeleted {
		if id, ok := tripstore.TripID(ev.StreamID); ok {
			for key, it := range r.watched {
				if it.job.TripID == id {
					delete(r.watched, key)
				}
			}
		}
		return
	}
	a, ok := answerKinds[ev.Type]
	if !ok {
		return
	}
	req, err := uuid.Parse(ev.Metadata.CausationID)
	if err != nil {
		return
	}
	key := job.MsgID(a.kind, req)
	it, watched := r.watched[key]
	switch {
	case !watched:
	case a.labels:
		it.labelled = true
	case a.kind != job.KindAnalysis || it.labelled || r.cfg.Relabel == nil:
		delete(r.watched, key)
	}
}

// answer is what a type of event answers: the request kind whose terminal
// answer it is, or (labels) the labels step of an analysis.
type answer struct {
	kind   job.Kind
	labels bool
}

// answerKinds are the event types that settle a request, by full name (the
// feed's events may come undecoded); the causation names the request.
var answerKinds = map[string]answer{
	job.TypeName(&eventsv1.RouteImported{}):     {kind: job.KindImport},
	job.TypeName(&eventsv1.RouteImportFailed{}): {kind: job.KindImport},
	job.TypeName(&eventsv1.StagesComputed{}):    {kind: job.KindStages},
	job.TypeName(&eventsv1.StagesFailed{}):      {kind: job.KindStages},
	job.TypeName(&eventsv1.AnalysisCompleted{}): {kind: job.KindAnalysis},
	job.TypeName(&eventsv1.AnalysisFailed{}):    {kind: job.KindAnalysis},
	job.TypeName(&eventsv1.LabelsResolved{}):    {kind: job.KindAnalysis, labels: true},
	job.TypeName(&eventsv1.LabelsUnavailable{}): {kind: job.KindAnalysis, labels: true},
}

// tripDeleted is TripDeleted's full name.
var tripDeleted = job.TypeName(&eventsv1.TripDeleted{})

// Watched is the number of requests still watched.
func (r *Reconciler) Watched() int { return len(r.watched) }

// watermark is the position before the oldest watched request, or the
// feed head when nothing is watched.
func (r *Reconciler) watermark() eventstore.Cursor {
	items := make([]*item, 0, len(r.watched))
	for _, it := range r.watched {
		items = append(items, it)
	}
	if len(items) == 0 {
		return r.cursor
	}
	sort.Slice(items, func(a, b int) bool { return items[a].seq < items[b].seq })
	return items[0].before
}

// load folds the job's trip; found is false when it is gone.
func (r *Reconciler) load(ctx context.Context, j job.Job) (st trip.State, found bool, err error) {
	l, err := r.cfg.Trips.Load(ctx, tripstore.System(), j.TripID)
	if errors.Is(err, trip.ErrNotFound) {
		return trip.State{}, false, nil
	}
	if err != nil {
		return trip.State{}, false, err
	}
	return l.State, true, nil
}

// PendingLabels are the stages with neither labels nor a recorded reason
// why they have none.
func PendingLabels(st trip.State) []trip.Stage {
	var out []trip.Stage
	for _, s := range st.Stages {
		if !s.Labelled && s.LabelsUnavailable == "" {
			out = append(out, s)
		}
	}
	return out
}

// Waiting reports whether the trip still waits for the job's computation.
func Waiting(st trip.State, j job.Job) bool {
	switch j.Kind {
	case job.KindImport:
		return st.RouteImport.Status == trip.ComputationRequested
	case job.KindStages:
		return st.StagesProgress.Status == trip.ComputationRequested
	case job.KindAnalysis:
		for _, a := range st.Analyses {
			if a.ID == j.Analysis().AnalysisID {
				return a.Status == trip.ComputationRequested
			}
		}
	}
	return false
}

// publish enqueues the job again under a fresh message id (the original id
// may still be inside the dedup window).
func (r *Reconciler) publish(ctx context.Context, j job.Job, now time.Time) error {
	data, err := j.Encode()
	if err != nil {
		return err
	}
	msg := &nats.Msg{Subject: job.Subject(j.Kind, j.TripID), Data: data, Header: nats.Header{}}
	msg.Header.Set(nats.MsgIdHdr, job.MsgID(j.Kind, j.RequestEventID)+":reconcile:"+strconv.FormatInt(now.UnixNano(), 10))
	if _, err := r.cfg.JS.PublishMsg(ctx, msg, jetstream.WithExpectStream(stream.Jobs)); err != nil {
		return fmt.Errorf("reconcile: publish %s: %w", msg.Subject, err)
	}
	return nil
}
