package consumer_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/worker/internal/consumer"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/testkit"
)

// handled records the trips of the jobs a runner handled, and what it
// told Consuming.
type handled struct {
	mu        sync.Mutex
	trips     map[uuid.UUID]bool
	consuming []bool
}

func (h *handled) Handle(_ context.Context, j job.Job, _ func()) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trips[j.TripID] = true
	return nil
}

func (h *handled) RecordFailure(context.Context, job.Job, error, bool) error { return nil }

func (h *handled) did(id uuid.UUID) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.trips[id]
}

func (h *handled) told(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.consuming = append(h.consuming, on)
}

func (h *handled) toldSoFar() []bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]bool(nil), h.consuming...)
}

// runnerRig is a real NATS server with the streams, a connection that
// reconnects for ever, and a runner on it (not yet running).
type runnerRig struct {
	nats   *testkit.NATSServer
	nc     *nats.Conn
	js     jetstream.JetStream
	runner *consumer.Runner
	h      *handled
}

func newRunnerRig(t *testing.T) *runnerRig {
	t.Helper()
	n, nc := testkit.NATS(t)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.NoError(t, stream.Ensure(context.Background(), js, stream.DefaultOptions()))
	h := &handled{trips: map[uuid.UUID]bool{}}
	r, err := consumer.NewRunner(consumer.RunnerConfig{JS: js, Handler: h, Concurrency: 2,
		Consumer: stream.DefaultConsumerOptions(), DrainTimeout: 5 * time.Second, Consuming: h.told})
	require.NoError(t, err)
	return &runnerRig{nats: n, nc: nc, js: js, runner: r, h: h}
}

// running is a runner's Run in progress.
type running struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error // what Run returned, once done is closed
}

// returned waits up to d for Run to return; ok is false if it did not.
func (g *running) returned(d time.Duration) (err error, ok bool) {
	select {
	case <-g.done:
		return g.err, true
	case <-time.After(d):
		return nil, false
	}
}

// run starts the runner; the test's end stops it.
func (r *runnerRig) run(t *testing.T) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	g := &running{cancel: cancel, done: make(chan struct{})}
	go func() { g.err = r.runner.Run(ctx); close(g.done) }()
	t.Cleanup(func() {
		cancel()
		if _, ok := g.returned(10 * time.Second); !ok {
			t.Error("the runner did not return within 10 s of its context's end")
		}
	})
	return g
}

// publish puts a stages job on JOBS and returns its trip.
func (r *runnerRig) publish(t *testing.T) uuid.UUID {
	t.Helper()
	j := job.New(uuid.New(), uuid.New(), job.StagesFor{Hash: "h"})
	data, err := j.Encode()
	require.NoError(t, err)
	_, err = r.js.Publish(context.Background(), job.Subject(j.Kind, j.TripID), data)
	require.NoError(t, err)
	return j.TripID
}

func TestRunnerOutlivesNATS(t *testing.T) {
	t.Parallel()

	t.Run("a runner started while NATS is down takes jobs once it is back", func(t *testing.T) {
		t.Parallel()
		r := newRunnerRig(t)
		r.nats.Stop()
		g := r.run(t)
		if err, ok := g.returned(2 * time.Second); ok {
			t.Fatalf("the runner gave up while NATS was down: %v", err)
		}
		require.Empty(t, r.h.toldSoFar(), "consuming was reported while NATS was down")
		require.NoError(t, r.nats.Restart())
		trip := r.publish(t)
		require.Eventually(t, func() bool { return r.h.did(trip) }, 30*time.Second, 10*time.Millisecond,
			"the job published after NATS came back was never handled")
		require.Equal(t, []bool{true}, r.h.toldSoFar())
	})

	t.Run("a consumer deleted under a running runner is created again and takes the next job", func(t *testing.T) {
		t.Parallel()
		r := newRunnerRig(t)
		r.run(t)
		first := r.publish(t)
		require.Eventually(t, func() bool { return r.h.did(first) }, 10*time.Second, 10*time.Millisecond)
		require.NoError(t, r.js.DeleteConsumer(context.Background(), stream.Jobs, stream.DefaultDurable))
		second := r.publish(t)
		require.Eventually(t, func() bool { return r.h.did(second) }, 30*time.Second, 10*time.Millisecond,
			"the job published after the consumer was deleted was never handled")
		require.Equal(t, []bool{true, false, true}, r.h.toldSoFar(), "consuming was not reported off and on again")
	})

	t.Run("a closed connection ends the runner with ErrConnectionClosed", func(t *testing.T) {
		t.Parallel()
		r := newRunnerRig(t)
		g := r.run(t)
		require.Eventually(t, func() bool { return len(r.h.toldSoFar()) == 1 }, 10*time.Second, 10*time.Millisecond)
		r.nc.Close()
		err, ok := g.returned(10 * time.Second)
		require.True(t, ok, "the runner did not return within 10 s of its connection's close")
		require.True(t, errors.Is(err, nats.ErrConnectionClosed), "Run returned %v", err)
		require.Equal(t, []bool{true, false}, r.h.toldSoFar())
	})

	t.Run("the context's end drains the runner and it returns nil", func(t *testing.T) {
		t.Parallel()
		r := newRunnerRig(t)
		g := r.run(t)
		trip := r.publish(t)
		require.Eventually(t, func() bool { return r.h.did(trip) }, 10*time.Second, 10*time.Millisecond)
		g.cancel()
		err, ok := g.returned(10 * time.Second)
		require.True(t, ok, "the runner did not return within 10 s of its context's end")
		require.NoError(t, err)
		require.Equal(t, []bool{true, false}, r.h.toldSoFar())
	})
}
