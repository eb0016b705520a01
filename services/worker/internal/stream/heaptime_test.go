package stream_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/testkit"
)

// TestServerHeapOverTime runs the soak's traffic shape through an embedded
// server at a steady rate for ROADBOOK_HEAP_RUN (a duration; the test is
// skipped without it) and logs every 10 s the live heap after a GC and the
// process's RSS: what BenchmarkServerHeap cannot show, state that expires
// with time (the dedup window, a block's per-subject state after two
// minutes, block caches after ten seconds). ROADBOOK_HEAP_SETTINGS=before
// runs the streams as ff8200f made them, =sixth as the sixth session left
// them (EVENTS stored under each trip, JOBS keeping ids 10 minutes),
// anything else as DefaultOptions;
// ROADBOOK_HEAP_RATE is events per second (default 400);
// ROADBOOK_HEAP_WINDOW, a duration, sets both dedup windows. Run the two
// side by side in two processes:
//
//	ROADBOOK_HEAP_RUN=6m ROADBOOK_HEAP_SETTINGS=before go test -run ServerHeapOverTime -v ./internal/stream/
func TestServerHeapOverTime(t *testing.T) {
	run, err := time.ParseDuration(os.Getenv("ROADBOOK_HEAP_RUN"))
	if err != nil {
		t.Skip("set ROADBOOK_HEAP_RUN to a duration to run it")
	}
	t.Parallel()
	rate := 400
	if r, err := strconv.Atoi(os.Getenv("ROADBOOK_HEAP_RATE")); err == nil && r > 0 {
		rate = r
	}
	settings := os.Getenv("ROADBOOK_HEAP_SETTINGS")
	ctx := context.Background()
	ns, err := testkit.StartNATS(t.TempDir(), -1)
	require.NoError(t, err)
	t.Cleanup(ns.Stop)
	nc, err := testkit.Connect(ns.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4096))
	require.NoError(t, err)
	o := stream.DefaultOptions()
	ev, jobs := o.EventsConfig(), o.JobsConfig()
	switch settings {
	case "before":
		ev.SubjectTransform, ev.Duplicates = nil, 10*time.Minute
		jobs.Duplicates = 10 * time.Minute
	case "sixth":
		ev.SubjectTransform = &jetstream.SubjectTransformConfig{Source: stream.EventsPublishedSubjects, Destination: "events.trip.{{wildcard(1)}}"}
		jobs.Duplicates = 10 * time.Minute
	}
	if w, err := time.ParseDuration(os.Getenv("ROADBOOK_HEAP_WINDOW")); err == nil {
		ev.Duplicates, jobs.Duplicates = w, w // to see the dedup state's cycle in minutes
	}
	for _, cfg := range []jetstream.StreamConfig{ev, jobs} {
		_, err := js.CreateOrUpdateStream(ctx, cfg)
		require.NoError(t, err)
	}
	startWorker(ctx, t, js)
	l := newLoader(soakShape{})
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	nextLog := time.Duration(0)
	for elapsed := time.Duration(0); elapsed < run; elapsed = time.Since(start) {
		<-tick.C
		l.publish(t, js, rate/10)
		if elapsed >= nextLog {
			t.Logf("t=%4.0fs events=%7d live heap %6.1f MiB, RSS %6.1f MiB",
				elapsed.Seconds(), l.next, float64(liveHeap())/(1<<20), float64(rssKiB())/1024)
			nextLog += 10 * time.Second
		}
	}
	if heapProfiles != "" {
		writeHeapProfile(t, filepath.Join(heapProfiles, "over-time-"+settings+".pb.gz"))
	}
}

// rssKiB is this process's VmRSS.
func rssKiB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	return 0
}
