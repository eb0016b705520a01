package stream_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/testkit"
)

// heapProfiles names the directory the heap benchmark writes one heap
// profile per case to (for `go tool pprof -top`); empty: none.
var heapProfiles = os.Getenv("ROADBOOK_HEAP_PROFILES")

func init() {
	if heapProfiles != "" {
		// The default rate (one sample per 512 KiB) sees a few dozen of
		// the server's small per-message objects; one per 4 KiB sees them
		// all well enough to rank the causes.
		runtime.MemProfileRate = 4096
	}
}

// heapCase is one stream setting and traffic shape to measure.
type heapCase struct {
	name  string
	shape soakShape
	// edit changes the two stream configs from DefaultOptions' (nil: as
	// they are).
	edit func(events, jobs *jetstream.StreamConfig)
	// settle is how long to wait after the load before measuring, so
	// time-bound state (a short dedup window) is dropped.
	settle time.Duration
}

// BenchmarkServerHeap measures what an embedded nats-server keeps on its
// heap per 10,000 EVENTS messages of the soak's shape (soakShape: about
// 2,500 JOBS messages with them, all consumed and acked), by cause. The
// first quarter of the load warms the server up (block buffers, pools,
// connections); the figure is the live heap after a GC once all of it is
// done minus the live heap after the first quarter, so a fixed cost does
// not pass for a per-message one. The server runs in the benchmark's
// process, so the figure is the server's (the client keeps nothing once
// every ack arrived). Run it as
//
//	go test -run '^$' -bench ServerHeap -benchtime 40000x ./internal/stream/
//
// (b.N is the number of EVENTS messages); ROADBOOK_HEAP_PROFILES=<dir>
// also writes one heap profile per case for `go tool pprof -top`.
func BenchmarkServerHeap(b *testing.B) {
	// main is the setting before issue 19 (ff8200f): EVENTS stored the
	// published subjects and kept message ids for 10 minutes.
	main := func(e, _ *jetstream.StreamConfig) { e.SubjectTransform, e.Duplicates = nil, 10*time.Minute }
	with := func(edits ...func(e, j *jetstream.StreamConfig)) func(e, j *jetstream.StreamConfig) {
		return func(e, j *jetstream.StreamConfig) {
			for _, edit := range edits {
				edit(e, j)
			}
		}
	}
	cases := []heapCase{
		{name: "before: a dedup entry per message and a subject entry per trip and event type", edit: main},
		{name: "after: a dedup entry per message and a subject entry per trip"},
		{name: "after, once the dedup windows have passed: a subject entry per trip", settle: 3 * time.Second,
			edit: func(e, j *jetstream.StreamConfig) { e.Duplicates, j.Duplicates = 2*time.Second, 2*time.Second }},
		{name: "without message ids nothing is deduplicated", shape: soakShape{NoMsgIDs: true}, edit: main},
		{name: "a 2 s dedup window that has passed keeps no dedup entry", settle: 3 * time.Second,
			edit: with(main, func(e, j *jetstream.StreamConfig) { e.Duplicates, j.Duplicates = 2*time.Second, 2*time.Second })},
		{name: "16 trips keep a handful of subjects", shape: soakShape{FewTrips: 16}, edit: main},
		{name: "one stored subject keeps one subject entry", edit: func(e, _ *jetstream.StreamConfig) {
			e.SubjectTransform = &jetstream.SubjectTransformConfig{Source: stream.EventsPublishedSubjects, Destination: "events.trip.all"}
		}},
		{name: "memory storage keeps the messages themselves", edit: with(main, func(e, j *jetstream.StreamConfig) {
			e.Storage, j.Storage = jetstream.MemoryStorage, jetstream.MemoryStorage
		})},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			c.shape.Events = b.N
			grown, events := c.measure(b)
			b.ReportMetric(float64(grown)/float64(events)*10000/1024, "heap-KiB/10k-events")
			b.ReportMetric(float64(grown)/float64(events), "heap-B/event")
		})
	}
}

// measure runs the case on a fresh server and returns the live heap it
// grew by after its warm-up and the number of events that cost.
func (c heapCase) measure(b *testing.B) (grown int64, events int) {
	ctx := context.Background()
	ns, err := testkit.StartNATS(b.TempDir(), -1)
	require.NoError(b, err)
	defer ns.Stop()
	nc, err := testkit.Connect(ns.URL())
	require.NoError(b, err)
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4096))
	require.NoError(b, err)
	o := stream.DefaultOptions()
	ev, jobs := o.EventsConfig(), o.JobsConfig()
	if c.edit != nil {
		c.edit(&ev, &jobs)
	}
	for _, cfg := range []jetstream.StreamConfig{ev, jobs} {
		_, err := js.CreateOrUpdateStream(ctx, cfg)
		require.NoError(b, err)
	}
	w := startWorker(ctx, b, js)
	l := newLoader(c.shape)
	warm := c.shape.Events / 4
	b.ResetTimer()
	sent := l.publish(b, js, warm)
	w.drained(ctx, b, sent)
	time.Sleep(c.settle)
	before := liveHeap()
	sent += l.publish(b, js, c.shape.Events-warm)
	w.drained(ctx, b, sent)
	b.StopTimer()
	time.Sleep(c.settle)
	after := liveHeap()
	if heapProfiles != "" {
		writeHeapProfile(b, filepath.Join(heapProfiles, profileName(b.Name())+".pb.gz"))
	}
	return after - before, c.shape.Events - warm
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func writeHeapProfile(tb testing.TB, path string) {
	tb.Helper()
	require.NoError(tb, os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	require.NoError(tb, err)
	defer f.Close()
	require.NoError(tb, pprof.Lookup("heap").WriteTo(f, 0))
}

// profileName turns a benchmark name into a file name.
func profileName(s string) string {
	s = s[strings.LastIndexByte(s, '/')+1:]
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}
