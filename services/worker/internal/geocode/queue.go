package geocode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"
)

// QueueOptions tunes a Queue. Zero values take the defaults.
type QueueOptions struct {
	// Interval is the provider's pace (Nominatim: 1.1 s); it only feeds the
	// Retry-After estimate of a full search line. Default 1.1 s.
	Interval time.Duration
	// MaxSearches bounds the interactive calls waiting in this process;
	// beyond it Search and Reverse answer ErrRateLimited at once rather than
	// queue work whose caller will have given up. Default 8.
	MaxSearches int
	// MinRemaining: an interactive call whose deadline is nearer than this
	// when its turn comes is answered ErrRateLimited instead of taking a
	// paced slot it would likely not live to use. Default 3 × Interval.
	MinRemaining time.Duration
	// LabelRetry is the least pause of label work after the provider was
	// unavailable (the provider's Retry-After or the breaker's hold wins when
	// longer). Default 30 s.
	LabelRetry time.Duration
	// Batch is how many labelled stages go into one LabelSink call (a trip's
	// last stages, or those before an outage, go sooner). Default 5.
	Batch int
	// KeepDone is how long a finished trip's progress stays readable.
	// Default 30 min.
	KeepDone time.Duration
	// Logger receives sink failures and outages. Default slog.Default().
	Logger *slog.Logger
	// Unavailable, when set, is told once per outage which stages of a trip
	// are left without labels (the worker records LabelsUnavailable), so
	// progress says "unavailable" with the reason rather than "pending"; the
	// queue keeps the work and the labels fill in after the outage.
	Unavailable func(ctx context.Context, tripID, geocoder, reason string, stages []StageEnds)
}

// Queue runs one process's calls to a geocoder one at a time: interactive
// searches and reverse lookups first (newest first under overload, see pick), then stage-end labels round-robin
// across trips, so one long trip cannot starve the others and a user's
// search never waits behind a trip's sixty labels. With Nominatim, the
// upstream.Client's application-wide pacer then spaces the calls of every
// replica's Queue ≥ 1.1 s apart. Queue implements Geocoder (for the
// responder) and Labeler (for the consumers). Run drives it.
type Queue struct {
	g    Geocoder
	sink LabelSink
	opt  QueueOptions
	log  *slog.Logger
	now  func() time.Time

	wake chan struct{}

	mu          sync.Mutex
	calls       []*call
	trips       map[string]*tripWork
	done        []finished // trips in the order they finished, for prune
	ring        []string   // trips with pending points, round-robin order
	next        int
	pausedUntil time.Time
	pauseReason string
}

// call is one interactive request waiting for the dispatcher.
type call struct {
	ctx  context.Context
	run  func(ctx context.Context)
	done chan struct{}
	err  error // set when the call never ran
}

// finished is a trip's completion as prune meets it: the trip and when.
type finished struct {
	tripID string
	at     time.Time
}

// tripWork is one trip's labelling request.
type tripWork struct {
	stages   []StageEnds
	points   []Point         // distinct ends still to resolve, in stage order
	resolved map[Point]Place // rounded point → the place there (Name "" = none)
	sent     map[int]bool    // stage positions delivered
	progress LabelProgress
	doneAt   time.Time
}

// NewQueue builds a queue over g delivering labels to sink.
func NewQueue(g Geocoder, sink LabelSink, opt QueueOptions) (*Queue, error) {
	if g == nil || sink == nil {
		return nil, errors.New("geocode: NewQueue needs a geocoder and a label sink")
	}
	if opt.Interval <= 0 {
		opt.Interval = 1100 * time.Millisecond
	}
	if opt.MinRemaining <= 0 {
		opt.MinRemaining = 3 * opt.Interval
	}
	if opt.MaxSearches <= 0 {
		opt.MaxSearches = 8
	}
	if opt.LabelRetry <= 0 {
		opt.LabelRetry = 30 * time.Second
	}
	if opt.Batch <= 0 {
		opt.Batch = 5
	}
	if opt.KeepDone <= 0 {
		opt.KeepDone = 30 * time.Minute
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Queue{g: g, sink: sink, opt: opt, log: log, now: time.Now, wake: make(chan struct{}, 1), trips: map[string]*tripWork{}}, nil
}

// Name implements Geocoder: the wrapped geocoder's name.
func (q *Queue) Name() string { return q.g.Name() }

// queueFullError is ErrRateLimited with the wait it suggests.
type queueFullError struct{ after time.Duration }

func (e *queueFullError) Error() string {
	return fmt.Sprintf("geocode: %s", "too many searches waiting; retry in "+e.after.Round(time.Second).String())
}
func (e *queueFullError) Unwrap() error { return ErrRateLimited }

// Search implements Geocoder through the priority line.
func (q *Queue) Search(ctx context.Context, query string, limit int) ([]Place, error) {
	var out []Place
	var err error
	if qerr := q.interactive(ctx, func(ctx context.Context) { out, err = q.g.Search(ctx, query, limit) }); qerr != nil {
		return nil, qerr
	}
	return out, err
}

// Reverse implements Geocoder through the priority line.
func (q *Queue) Reverse(ctx context.Context, lat, lon float64) (Place, error) {
	var out Place
	var err error
	if qerr := q.interactive(ctx, func(ctx context.Context) { out, err = q.g.Reverse(ctx, lat, lon) }); qerr != nil {
		return Place{}, qerr
	}
	return out, err
}

// interactive queues run ahead of labels and waits for it.
func (q *Queue) interactive(ctx context.Context, run func(context.Context)) error {
	c := &call{ctx: ctx, run: run, done: make(chan struct{})}
	q.mu.Lock()
	if n := len(q.calls); n >= q.opt.MaxSearches {
		q.mu.Unlock()
		return &queueFullError{after: time.Duration(n+1) * q.opt.Interval}
	}
	q.calls = append(q.calls, c)
	q.mu.Unlock()
	q.signal()
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *Queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Label implements Labeler: it (re)places the trip's request and returns.
func (q *Queue) Label(ctx context.Context, tripID string, stages []StageEnds) error {
	if tripID == "" {
		return fmt.Errorf("%w: trip id is empty", ErrInvalidArgument)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.signal()
	defer q.mu.Unlock()
	q.prune()
	old := q.trips[tripID]
	w := &tripWork{stages: slices.Clone(stages), resolved: map[Point]Place{}, sent: map[int]bool{}}
	if old != nil {
		w.resolved = old.resolved // answers already known stay known
	}
	seen := map[Point]bool{}
	for _, s := range stages {
		for _, p := range []Point{round(s.Start), round(s.End)} {
			if _, ok := w.resolved[p]; !ok && !seen[p] {
				seen[p] = true
				w.points = append(w.points, p)
			}
		}
	}
	w.progress = LabelProgress{State: LabelsRunning, Total: len(stages)}
	// During an outage a new request is unavailable at once, like the
	// requests the outage found queued: its caller is told now rather than
	// after the pause (an agent would otherwise poll a "running" part that
	// cannot move), and its labels still fill in when the geocoder is back.
	var stranded []StageEnds
	if q.now().Before(q.pausedUntil) && len(w.points) > 0 {
		w.progress.State, w.progress.Reason, w.progress.RetryAt = LabelsUnavailable, "geocoder unavailable: "+q.pauseReason, q.pausedUntil
		stranded = w.unsent()
	}
	q.trips[tripID] = w
	if !slices.Contains(q.ring, tripID) {
		q.ring = append(q.ring, tripID)
	}
	if len(stranded) > 0 && q.opt.Unavailable != nil {
		reason := w.progress.Reason
		q.mu.Unlock()
		q.opt.Unavailable(ctx, tripID, q.g.Name(), reason, stranded)
		q.mu.Lock()
	}
	return nil
}

// Progress implements Labeler.
func (q *Queue) Progress(tripID string) (LabelProgress, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	w, ok := q.trips[tripID]
	if !ok {
		return LabelProgress{}, false
	}
	return w.progress, true
}

// prune forgets finished trips after KeepDone. Called with mu held, on
// every Label. It walks only the completions that have expired, oldest
// first: walking every trip, as it once did, made each Label cost as much
// as the trips finished in the last KeepDone (30 minutes): 0.6 s of a
// 60-second CPU profile of the worker 1.5 minutes into the 10-minute soak,
// 2.1 s (13 %) 5 minutes in, with the reconciler's loads the whole of the
// worker's rise per trip in the run's second half. A trip labelled again since
// the completion it expired for is kept (its doneAt moved on).
func (q *Queue) prune() {
	now := q.now()
	n := 0
	for ; n < len(q.done) && now.Sub(q.done[n].at) > q.opt.KeepDone; n++ {
		f := q.done[n]
		if w, ok := q.trips[f.tripID]; ok && w.doneAt.Equal(f.at) {
			delete(q.trips, f.tripID)
		}
	}
	if n > 0 {
		q.done = slices.Delete(q.done, 0, n)
	}
}

// round keys points at 1e-5° (about a metre), as the Nominatim client does.
func round(p Point) Point {
	return Point{Lat: math.Round(p.Lat*1e5) / 1e5, Lon: math.Round(p.Lon*1e5) / 1e5}
}

// Run dispatches until ctx ends: one geocoder call at a time, interactive
// calls first, labels round-robin across trips unless paused by an outage.
func (q *Queue) Run(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			q.failCalls(err)
			return err
		}
		w := q.pick()
		switch {
		case w.call != nil:
			w.call.run(w.call.ctx)
			close(w.call.done)
			continue
		case w.tripID != "":
			q.resolve(ctx, w)
			continue
		}
		var timer *time.Timer
		var fire <-chan time.Time
		if w.wait > 0 {
			timer = time.NewTimer(w.wait)
			fire = timer.C
		}
		select {
		case <-ctx.Done():
		case <-q.wake:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// failCalls releases interactive callers when the queue stops.
func (q *Queue) failCalls(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, c := range q.calls {
		c.err = fmt.Errorf("%w: the geocoding queue stopped: %w", ErrUnavailable, err)
		close(c.done)
	}
	q.calls = nil
}

// work is the dispatcher's next step: an interactive call, a trip's point
// (or, when hasPoint is false, only a delivery of what is ready), or a sleep.
type work struct {
	call     *call
	tripID   string
	point    Point
	hasPoint bool
	wait     time.Duration
}

// pick chooses the next work: a live interactive call, else the next trip's
// next point (round-robin), else how long to sleep (0 = until woken).
func (q *Queue) pick() work {
	q.mu.Lock()
	defer q.mu.Unlock()
	// Under overload, serve the newest caller first (adaptive LIFO): the
	// oldest are about to give up, and a paced slot reserved for a caller
	// who then leaves is a slot lost for everyone. Callers without time for
	// even a few slots are told to come back instead of taking one.
	for len(q.calls) > 0 {
		c := q.calls[len(q.calls)-1]
		q.calls = q.calls[:len(q.calls)-1]
		if err := c.ctx.Err(); err != nil {
			c.err = err // the caller has gone: spend no request on it
			close(c.done)
			continue
		}
		if dl, ok := c.ctx.Deadline(); ok && dl.Sub(q.now()) < q.opt.MinRemaining {
			c.err = &queueFullError{after: q.opt.Interval * time.Duration(len(q.calls)+1)}
			close(c.done)
			continue
		}
		return work{call: c}
	}
	if len(q.ring) == 0 {
		return work{}
	}
	for _, id := range q.ring {
		if len(q.trips[id].points) == 0 {
			return work{tripID: id} // only a delivery: needs no request
		}
	}
	if wait := q.pausedUntil.Sub(q.now()); wait > 0 {
		return work{wait: wait}
	}
	if q.next >= len(q.ring) {
		q.next = 0
	}
	id := q.ring[q.next]
	t := q.trips[id]
	q.next++
	return work{tripID: id, point: t.points[0], hasPoint: true}
}

// resolve names one point of a trip and delivers the stages it completes.
func (q *Queue) resolve(ctx context.Context, job work) {
	tripID, p := job.tripID, job.point
	var place Place
	var err error
	outage := false
	if job.hasPoint {
		place, err = q.g.Reverse(ctx, p.Lat, p.Lon)
		if ctx.Err() != nil {
			return
		}
		switch {
		case err == nil:
		case errors.Is(err, ErrNoPlace), errors.Is(err, ErrInvalidArgument):
			place = Place{}
		default:
			outage = true
		}
	}

	q.mu.Lock()
	type stranded struct {
		tripID, reason string
		stages         []StageEnds
	}
	var newlyUnavailable []stranded
	if outage {
		retry := max(q.opt.LabelRetry, RetryAfter(err))
		q.pausedUntil, q.pauseReason = q.now().Add(retry), err.Error()
		for _, id := range q.ring {
			w := q.trips[id]
			if w.progress.State != LabelsUnavailable {
				newlyUnavailable = append(newlyUnavailable, stranded{id, "geocoder unavailable: " + err.Error(), w.unsent()})
			}
			w.progress.State, w.progress.Reason, w.progress.RetryAt = LabelsUnavailable, "geocoder unavailable: "+err.Error(), q.pausedUntil
		}
		q.log.Warn("geocode: labels paused", "geocoder", q.g.Name(), "retry_in", retry, "error", err)
	}
	w := q.trips[tripID]
	var batch []StageLabel
	flush := outage
	if w != nil && !outage {
		if job.hasPoint {
			w.resolved[p] = place
			w.points = slices.DeleteFunc(w.points, func(x Point) bool { return x == p })
		}
		if w.progress.State == LabelsUnavailable {
			w.progress.State, w.progress.Reason, w.progress.RetryAt = LabelsRunning, "", time.Time{}
		}
		flush = len(w.points) == 0
	}
	complete := false
	if w != nil {
		batch = w.ready(flush, q.opt.Batch)
		w.progress.Done += len(batch)
		if len(w.points) == 0 {
			complete = true
			q.ring = slices.DeleteFunc(q.ring, func(id string) bool { return id == tripID })
		}
	}
	q.mu.Unlock()

	if q.opt.Unavailable != nil {
		for _, u := range newlyUnavailable {
			q.opt.Unavailable(ctx, u.tripID, q.g.Name(), u.reason, u.stages)
		}
	}
	if len(batch) > 0 {
		if err := q.sink(ctx, tripID, q.g.Name(), batch); err != nil {
			q.log.Error("geocode: delivering labels failed", "trip_id", tripID, "stages", len(batch), "error", err)
		}
	}
	if complete {
		// Done only once the last batch has gone to the sink: Progress
		// promises every stage delivered, and a caller reading Done before
		// the sink returned would look for labels not written yet (the
		// queue's outage test saw exactly that, once in a CI run). The trip
		// left the ring above, so no second resolve delivers it meanwhile;
		// if a new Label replaced w since, w is no longer in trips and the
		// finished entry matches nothing when prune walks it.
		q.mu.Lock()
		w.progress.State, w.progress.Reason, w.doneAt = LabelsDone, "", q.now()
		q.done = append(q.done, finished{tripID: tripID, at: w.doneAt})
		q.mu.Unlock()
	}
}

// unsent are the stages not delivered yet. Called with the queue's mu held.
func (w *tripWork) unsent() []StageEnds {
	var out []StageEnds
	for i, s := range w.stages {
		if !w.sent[i] {
			out = append(out, s)
		}
	}
	return out
}

// ready returns the completed, undelivered stages when there are at least
// batch of them, or all of them when flush. A stage is complete when its
// ends and their neighbours (the ends before and after, which the label
// rule compares them with) are resolved; its labels follow Labels over the
// trip's chain of stage ends. Called with the queue's mu held.
func (w *tripWork) ready(flush bool, batch int) []StageLabel {
	known := func(p Point) bool {
		_, ok := w.resolved[round(p)]
		return ok
	}
	// Stage i's labels compare its ends with the ends before and after.
	complete := func(i int) bool {
		for k := max(0, i-1); k <= min(len(w.stages)-1, i+1); k++ {
			if !known(w.stages[k].Start) || !known(w.stages[k].End) {
				return false
			}
		}
		return true
	}
	all := StageLabels(w.stages, func(p Point) Place { return w.resolved[round(p)] })
	var out []StageLabel
	var idx []int
	for i := range w.stages {
		if w.sent[i] || !complete(i) {
			continue
		}
		out = append(out, all[i])
		idx = append(idx, i)
	}
	if len(out) == 0 || (!flush && len(out) < batch) {
		return nil
	}
	for _, i := range idx {
		w.sent[i] = true
	}
	return out
}
