package workerserver_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/feedwake"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

func TestCrossProcessWake(t *testing.T) {
	t.Parallel()

	t.Run("a trip created through another process's store is paced at once, not at the relay's next poll, and the worker holding the lease announces none of its own commits", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		// A poll far beyond the test's patience: only the API process's
		// announcement can set the relay going.
		reg := prometheus.NewRegistry()
		e := startWaking(t, func(c *workerserver.Config) { c.Registry = reg })

		// The API in another process: a pool and a NATS connection of its
		// own, announcing its commits as `roadbook api` does.
		api := testkit.StoreAt(t, e.store.Pool().Config().ConnString())
		nc, err := testkit.Connect(e.nats.URL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		an, err := feedwake.NewAnnouncer(nc, api)
		require.NoError(t, err)
		actx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { an.Run(actx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })

		// Every announcement on the wire, to tell the API's from the worker's.
		seen := countAnnouncements(t, nc)

		trips := tripstore.New(api, nil)
		up, err := pipelinetest.Store(ctx, trips, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		id, err := pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		st := testkit.WaitForTrip(t, e.trips, id, func(st trip.State) bool { return len(st.Stages) > 0 })
		require.NotEmpty(t, st.Stages)
		require.GreaterOrEqual(t, an.Sent(), int64(1))

		// The worker holds the lease: its own results (stages, analysis)
		// wake its relay in process and are not announced.
		waitTerminal(t, e.store, id)
		require.NoError(t, nc.Flush())
		time.Sleep(100 * time.Millisecond)
		require.Equal(t, an.Sent(), seen.Load(), "only the API's commits were announced")

		// The worker's MetricFeedAnnouncements says so too.
		counts := announcementCounts(t, reg)
		require.Zero(t, counts["sent"], "the worker announced none of its commits")
		require.Zero(t, counts["failed"])
		require.Positive(t, counts["skipped"], "its results were left out while its relay held the lease")
	})

	t.Run("a standby worker's commits wake the active relay in another worker", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		a := startWaking(t)

		// Worker B: another process on the same database and NATS.
		bStore := testkit.StoreAt(t, a.store.Pool().Config().ConnString())
		nc, err := testkit.Connect(a.nats.URL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		b, err := workerserver.New(workerserver.Config{Store: bStore, NATS: nc, Concurrency: 2, LeaseTTL: 2 * time.Second,
			CrossProcessWake: true, RelayPollInterval: time.Hour})
		require.NoError(t, err)
		bctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- b.Run(bctx) }()
		t.Cleanup(func() { cancel(); <-done })

		seen := countAnnouncements(t, nc)

		before := seen.Load()
		own := tripstore.New(a.store, nil)
		up, err := pipelinetest.Store(ctx, own, "a.gpx", 10, "a", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		idA, err := pipelinetest.CreateTrip(ctx, own, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		testkit.WaitForTrip(t, a.trips, idA, func(st trip.State) bool { return len(st.Stages) > 0 })
		require.False(t, b.RelayActive())

		// A commit through the standby's store, as its job results are:
		// announced, and only that wakes the active relay in time.
		trips := tripstore.New(bStore, nil)
		up, err = pipelinetest.Store(ctx, trips, "b.gpx", 10, "b", pipelinetest.Line(61, 10, 61.1, 10, 10), true)
		require.NoError(t, err)
		idB, err := pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		testkit.WaitForTrip(t, a.trips, idB, func(st trip.State) bool { return len(st.Stages) > 0 })
		require.Greater(t, seen.Load(), before, "the standby's commits were announced")
	})

	t.Run("cross-process wake over a store that cannot wake its readers is refused by name", func(t *testing.T) {
		t.Parallel()
		e := start(t, nil)
		nc, err := testkit.Connect(e.nats.URL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		_, err = workerserver.New(workerserver.Config{Store: struct{ eventstore.Store }{e.store}, NATS: nc, CrossProcessWake: true})
		require.ErrorIs(t, err, workerserver.ErrInvalidConfig)
		require.ErrorContains(t, err, "eventstore.Notifier")
	})
}

// startWaking starts a worker with CrossProcessWake and a one-hour poll
// (and then mutate, when given), and waits until its relay holds the lease.
func startWaking(t *testing.T, mutate ...func(*workerserver.Config)) *env {
	t.Helper()
	e := start(t, func(c *workerserver.Config) {
		c.CrossProcessWake, c.RelayPollInterval = true, time.Hour
		for _, m := range mutate {
			m(c)
		}
	})
	require.Eventually(t, e.srv.RelayActive, 30*time.Second, 5*time.Millisecond)
	return e
}

// countAnnouncements counts every announcement on the wire from now on.
func countAnnouncements(t *testing.T, nc *nats.Conn) *atomic.Int64 {
	t.Helper()
	var seen atomic.Int64
	sub, err := nc.Subscribe(feedwake.Subject, func(*nats.Msg) { seen.Add(1) })
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, nc.Flush())
	return &seen
}

// announcementCounts reads MetricFeedAnnouncements from reg, by outcome.
func announcementCounts(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != workerserver.MetricFeedAnnouncements {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" {
					out[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	require.Len(t, out, 3, "sent, failed and skipped")
	return out
}
