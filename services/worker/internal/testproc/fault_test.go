package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds this command once (with -race) for the tests.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "testproc")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "testproc")
		out, err := exec.Command("go", "build", "-race", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = &buildError{out: string(out), err: err}
		}
	})
	require.NoError(t, buildErr)
	return binPath
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// proc is a running worker process and the lines it printed.
type proc struct {
	cmd    *exec.Cmd
	lines  chan string
	exited chan struct{} // closed when the process ended
	err    error         // its Wait result, valid after exited
}

func spawn(t *testing.T, db, natsURL string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"-db", db, "-nats", natsURL}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &proc{cmd: cmd, lines: make(chan string, 1024), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-p.exited
	})
	return p
}

// await waits for a line with the prefix (a liveness bound, not a speed
// check: 60 s once ran out on a CI clone whose machine was at load 16 on
// two cores: the race-built second worker had not reached its provider).
func (p *proc) await(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(150 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			require.True(t, ok, "the process ended before printing %q", prefix)
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("no %q line", prefix)
		}
	}
}

type fixture struct {
	db    string
	store *postgres.Store
	trips *tripstore.Store
	nats  *testkit.NATSServer
}

func setup(t *testing.T) *fixture {
	t.Helper()
	db := testkit.SchemaURL(t)
	es := testkit.StoreAt(t, db)
	n, err := testkit.StartNATS(t.TempDir(), -1)
	require.NoError(t, err)
	t.Cleanup(n.Stop)
	return &fixture{db: db, store: es, trips: tripstore.New(es, nil), nats: n}
}

func (f *fixture) trip(t *testing.T, owner string, km float64) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	pts := pipelinetest.Line(60.0, 10.0, 60.0+km/111.0, 10.0, 200)
	up, err := pipelinetest.Store(ctx, f.trips, "line.gpx", 1000, "line", pts, true)
	require.NoError(t, err)
	id, err := pipelinetest.CreateTrip(ctx, f.trips, owner, up, trip.SettingsPatch{})
	require.NoError(t, err)
	return id
}

func (f *fixture) waitTerminal(t *testing.T, id uuid.UUID) pipelinetest.Report {
	t.Helper()
	var rep pipelinetest.Report
	deadline := time.Now().Add(90 * time.Second)
	for {
		var err error
		rep, err = pipelinetest.Audit(context.Background(), f.store, id)
		require.NoError(t, err)
		if rep.Terminal() {
			return rep
		}
		if time.Now().After(deadline) {
			// Name what the trip holds, so a rare failure says where its
			// pipeline stopped (the NATS-restart case failed so in CI: every
			// trip at RouteImported, no job done, because the restart fell
			// on the worker's start and its consumer was never created;
			// consumer.TestRunnerOutlivesNATS holds that fixed).
			var types []string
			for _, ev := range rep.Events {
				types = append(types, fmt.Sprintf("v%d %s", ev.Version, ev.Type))
			}
			t.Fatalf("trip %s not terminal within 90 s; its events: %s", id, strings.Join(types, ", "))
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// keepLog is a logger for an in-process worker whose lines are printed
// when the test failed: the child-process tests print their workers' lines,
// the in-process one had nothing to show. It keeps debug lines too: the job
// consumer reports NATS's answers to its fetches at that level.
func keepLog(t *testing.T) *slog.Logger {
	t.Helper()
	b := &testkit.SyncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the worker's log:\n%s", b.String())
		}
	})
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// lastSeq is the number of messages a stream ever stored.
func lastSeq(t *testing.T, url, name string) uint64 {
	t.Helper()
	nc, err := testkit.Connect(url)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	s, err := js.Stream(context.Background(), name)
	require.NoError(t, err)
	info, err := s.Info(context.Background())
	require.NoError(t, err)
	return info.State.LastSeq
}

func TestFaults(t *testing.T) {
	t.Parallel()

	t.Run("a worker killed with SIGKILL mid-job: the job completes exactly once on redelivery", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		id := f.trip(t, "rider-kill", 120)
		first := spawn(t, f.db, f.nats.URL(), "-slow-provider=30s", "-ack-wait=2s")
		line := first.await(t, "PROVIDER ")
		require.Contains(t, line, id.String())
		// Mid-job: the offline part is recorded, the provider is still working.
		rep, err := pipelinetest.Audit(context.Background(), f.store, id)
		require.NoError(t, err)
		require.Equal(t, 1, rep.Counts["AnalysisPartCompleted"])
		require.Zero(t, rep.Counts["AnalysisCompleted"])
		require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
		<-first.exited

		second := spawn(t, f.db, f.nats.URL(), "-slow-provider=10ms", "-ack-wait=2s")
		second.await(t, "PROVIDER ")
		rep = f.waitTerminal(t, id)
		require.Equal(t, 1, rep.Counts["AnalysisCompleted"])
		require.Equal(t, 1, rep.Counts["AnalysisPartCompleted"], "the redelivery's part was refused as a duplicate")
		require.Equal(t, 1, rep.Counts["StagesComputed"])
		l, err := f.trips.Load(context.Background(), tripstore.System(), id)
		require.NoError(t, err)
		for _, s := range l.State.Stages {
			require.Equal(t, trip.Available, s.Families["weather"], "the provider's family ran on the redelivery")
		}
	})

	t.Run("the relay dies between publish and cursor save: no duplicate job, no lost event", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		id := f.trip(t, "rider-relay", 60)
		crashed := spawn(t, f.db, f.nats.URL(), "-crash-after-publish")
		crashed.await(t, "PUBLISHED ")
		<-crashed.exited
		var ee *exec.ExitError
		require.ErrorAs(t, crashed.err, &ee)
		require.Equal(t, 3, ee.ExitCode())
		cur, err := f.store.LoadCursor(context.Background(), "relay")
		require.NoError(t, err)
		require.Zero(t, cur.Position, "the cursor was not saved")
		require.Equal(t, uint64(1), lastSeq(t, f.nats.URL(), "JOBS"), "the stages job was published before the crash")

		spawn(t, f.db, f.nats.URL())
		rep := f.waitTerminal(t, id)
		require.Equal(t, 1, rep.Counts["StagesComputed"])
		// stages + analysis: the republished stages job was dropped by dedup.
		require.Equal(t, uint64(2), lastSeq(t, f.nats.URL(), "JOBS"))
		require.Eventually(t, func() bool {
			return lastSeq(t, f.nats.URL(), "EVENTS") == uint64(len(rep.Events))
		}, 30*time.Second, 25*time.Millisecond, "every event once on EVENTS")
	})

	t.Run("NATS restarted mid-stream on the same store directory: nothing lost", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		nc, err := testkit.Connect(f.nats.URL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		cons := workerserver.DefaultConsumerOptions()
		cons.AckWait = 2 * time.Second
		srv, err := workerserver.New(workerserver.Config{Store: f.store, NATS: nc, Consumers: &cons, LeaseTTL: 2 * time.Second,
			ReconcileInterval: 500 * time.Millisecond, ReconcileDeadline: 10 * time.Second, Logger: keepLog(t)})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })

		var ids []uuid.UUID
		for i := range 20 {
			ids = append(ids, f.trip(t, "rider-nats", 40+float64(i)))
			if i == 9 {
				require.NoError(t, f.nats.Restart())
			}
		}
		total := 0
		for _, id := range ids {
			rep := f.waitTerminal(t, id)
			require.Equal(t, 1, rep.Counts["StagesComputed"], "trip %s", id)
			require.Equal(t, 1, rep.Counts["AnalysisCompleted"], "trip %s", id)
			total += len(rep.Events)
		}
		require.Eventually(t, func() bool {
			return lastSeq(t, f.nats.URL(), "EVENTS") == uint64(total)
		}, 30*time.Second, 25*time.Millisecond, "every event once on EVENTS after the restart")
		require.True(t, srv.Ready())
	})
}
