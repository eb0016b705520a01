package workerserver_test

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
)

// hopTrace records when the calls of each hop started and ended: the
// client's create, the relay's feed reads and cursor saves, the worker's
// loads and its result append. Relay publishing and JetStream delivery
// leave no store call; they are the gaps between those (see segments).
type hopTrace struct {
	mu     sync.Mutex
	calls  map[eventstore.StreamID][]traceSpan
	shared []traceSpan // cursor saves and blob reads, which name no stream
	feeds  []feedRead
}

type traceSpan struct {
	what       string
	start, end time.Time
}

type feedRead struct {
	start, end time.Time
	streams    map[eventstore.StreamID]bool
}

func newHopTrace() *hopTrace { return &hopTrace{calls: map[eventstore.StreamID][]traceSpan{}} }

func (t *hopTrace) call(id eventstore.StreamID, what string, start, end time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id == "" {
		t.shared = append(t.shared, traceSpan{what, start, end})
		return
	}
	t.calls[id] = append(t.calls[id], traceSpan{what, start, end})
}

func (t *hopTrace) feed(start, end time.Time, evs []eventstore.RecordedEvent) {
	f := feedRead{start: start, end: end, streams: map[eventstore.StreamID]bool{}}
	for _, e := range evs {
		f.streams[e.StreamID] = true
	}
	t.mu.Lock()
	t.feeds = append(t.feeds, f)
	t.mu.Unlock()
}

// hopSegments are the parts of one hop, in milliseconds, each measured from
// the end of the part before it on the hop's critical path.
type hopSegments struct {
	load        float64 // client: the create's load (head row) before its append
	create      float64 // client: the create's append, commit included
	wake        float64 // create committed → the relay's feed read that returns it starts
	emptyReads  float64 // relay feed reads in between that did not return it: other batches, or it was held back (count)
	feedRead    float64 // that feed read
	toHandler   float64 // feed read returned → the worker's first call for the trip (publish, ack, delivery, decode)
	publishAcks float64 // feed read returned → the relay's cursor save starts (publish + every ack), off the critical path
	cursorSave  float64 // the relay's cursor save (commit), off the critical path
	handler     float64 // worker's first call → its result append starts (load, route blob, pacing)
	firstCall   float64 // the worker's first call itself when it is a load of the trip (part of handler); 0 when the relay had folded the trip for it
	result      float64 // the result append, commit included
	total       float64
}

// segments cuts the hop of stream id that the client started at start.
func (t *hopTrace) segments(id eventstore.StreamID, start time.Time) (hopSegments, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var s hopSegments
	// The client's calls are its load (before the create) and the create,
	// the stream's first append; every other call is the worker's. Calls
	// are told apart by role, not by time: under load the client may be
	// descheduled between the commit and the return of its append, and the
	// worker may start before that return.
	calls := t.calls[id]
	var create, firstWorker, result *traceSpan
	for i := range calls {
		if c := &calls[i]; c.what == "append" && (create == nil || c.start.Before(create.start)) {
			create = c
		}
	}
	if create == nil {
		return s, fmt.Errorf("hop of %s: no create in the trace", id)
	}
	for i := range calls {
		if c := &calls[i]; c.what == "stages" {
			result = c // the append that recorded StagesComputed
		}
	}
	if result == nil {
		return s, fmt.Errorf("hop of %s: no StagesComputed append in the trace", id)
	}
	for i := range calls {
		c := &calls[i]
		if c == create || c.start.Before(create.start) || c.start.After(result.start) {
			continue // the client's, or the analysis job's after the hop
		}
		if firstWorker == nil || c.start.Before(firstWorker.start) {
			firstWorker = c
		}
	}
	if firstWorker == nil || result == nil {
		return s, fmt.Errorf("hop of %s: incomplete trace", id)
	}
	var read *feedRead
	for i := range t.feeds {
		f := &t.feeds[i]
		if f.streams[id] {
			read = f
			break
		}
		if f.start.After(create.start) {
			s.emptyReads++
		}
	}
	if read == nil {
		return s, fmt.Errorf("hop of %s: no feed read returned it", id)
	}
	var save *traceSpan
	for i := range t.shared {
		if c := &t.shared[i]; c.what == "cursor" && !c.start.Before(read.end) {
			save = c
			break
		}
	}
	ms := func(a, b time.Time) float64 { return float64(b.Sub(a).Microseconds()) / 1000 }
	s.load = ms(start, create.start)
	s.create = ms(create.start, create.end)
	s.wake = ms(create.end, read.start)
	s.feedRead = ms(read.start, read.end)
	s.toHandler = ms(read.end, firstWorker.start)
	if save != nil {
		s.publishAcks = ms(read.end, save.start)
		s.cursorSave = ms(save.start, save.end)
	}
	s.handler = ms(firstWorker.start, result.start)
	if firstWorker != result {
		s.firstCall = ms(firstWorker.start, firstWorker.end)
	}
	s.result = ms(result.start, result.end)
	s.total = ms(start, result.end)
	return s, nil
}

// BenchmarkHopTrace traces 200 sequential hops of the bare round trip (a
// 3-point route: create → relay → stages job → StagesComputed) and prints
// the median and p90 of each part:
//
//	go test -run '^$' -bench '^BenchmarkHopTrace$' -benchtime=1x ./workerserver
func BenchmarkHopTrace(b *testing.B) {
	ctx := context.Background()
	rig := startPipeline(b)
	_ = rig.hops(ctx, b, 30) // warm-up
	n := 200
	profile := os.Getenv("HOP_CPUPROFILE") // a CPU profile of the measured hops alone
	if profile != "" {
		n = 1500
	}
	tr := newHopTrace()
	rig.hs.mu.Lock()
	rig.hs.trace = tr
	rig.hs.mu.Unlock()
	before := rig.es.Pool().Stat()
	cpu0 := rig.cpu.read(ctx)
	stopProfile := func() {}
	if profile != "" {
		f, err := os.Create(profile)
		require.NoError(b, err)
		require.NoError(b, pprof.StartCPUProfile(f))
		stopProfile = func() { pprof.StopCPUProfile(); _ = f.Close() }
	}
	b.ResetTimer()
	type started struct {
		id eventstore.StreamID
		at time.Time
	}
	hops := make([]started, 0, n)
	for range n {
		t0 := time.Now()
		id, _ := rig.oneHop(ctx, b)
		hops = append(hops, started{id, t0})
	}
	b.StopTimer()
	stopProfile()
	proc, pg := rig.cpu.read(ctx).since(cpu0)
	after := rig.es.Pool().Stat()
	// The trace is cut after the CPU reading: its own work is not the hop's.
	segs := make([]hopSegments, 0, n)
	for _, h := range hops {
		s, err := tr.segments(h.id, h.at)
		require.NoError(b, err)
		segs = append(segs, s)
	}
	fmt.Fprintf(os.Stdout, "hop-trace cpu us_per_hop process=%.0f postgres=%.0f\n", float64(proc.Microseconds())/float64(n), float64(pg.Microseconds())/float64(n))
	fmt.Fprintf(os.Stdout, "hop-trace pool max_conns=%d acquires=%d waited=%d wait_ms_per_hop=%.3f\n", after.MaxConns(),
		after.AcquireCount()-before.AcquireCount(), after.EmptyAcquireCount()-before.EmptyAcquireCount(),
		float64((after.AcquireDuration()-before.AcquireDuration()).Microseconds())/1000/float64(n))
	col := func(f func(hopSegments) float64) (float64, float64, float64) {
		v := make([]float64, len(segs))
		for i, s := range segs {
			v[i] = f(s)
		}
		slices.Sort(v)
		return percentile(v, 50), percentile(v, 90), v[len(v)-1]
	}
	for _, row := range []struct {
		name string
		f    func(hopSegments) float64
	}{
		{"client load (head row) before the create", func(s hopSegments) float64 { return s.load }},
		{"create append (commit)", func(s hopSegments) float64 { return s.create }},
		{"commit → relay feed read starts (wake-up)", func(s hopSegments) float64 { return s.wake }},
		{"  relay reads in between (other batches, held back; count)", func(s hopSegments) float64 { return s.emptyReads }},
		{"relay feed read", func(s hopSegments) float64 { return s.feedRead }},
		{"feed read → handler's first store call (publish, delivery; pacing too when no load)", func(s hopSegments) float64 { return s.toHandler }},
		{"  (off path) feed read → cursor save (publish + acks)", func(s hopSegments) float64 { return s.publishAcks }},
		{"  (off path) cursor save (commit)", func(s hopSegments) float64 { return s.cursorSave }},
		{"handler: first call → result append (load, blob, pacing)", func(s hopSegments) float64 { return s.handler }},
		{"  of it, the worker's load of the trip (0: folded by the relay)", func(s hopSegments) float64 { return s.firstCall }},
		{"result append (commit)", func(s hopSegments) float64 { return s.result }},
		{"hop total", func(s hopSegments) float64 { return s.total }},
	} {
		p50, p90, worst := col(row.f)
		fmt.Fprintf(os.Stdout, "hop-trace %-58s p50_ms=%6.2f p90_ms=%6.2f max_ms=%7.2f\n", row.name, p50, p90, worst)
	}
}
