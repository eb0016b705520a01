package workerserver_test

import (
	"context"
	"testing"
	"time"

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

	t.Run("a trip created through another process's store is paced at once, not at the relay's next poll", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		// A poll far beyond the test's patience: only the API process's
		// announcement can set the relay going.
		e := start(t, func(c *workerserver.Config) { c.CrossProcessWake, c.RelayPollInterval = true, time.Hour })
		require.Eventually(t, e.srv.RelayActive, 30*time.Second, 5*time.Millisecond)

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

		trips := tripstore.New(api, nil)
		up, err := pipelinetest.Store(ctx, trips, "x.gpx", 10, "x", pipelinetest.Line(60, 10, 60.1, 10, 10), true)
		require.NoError(t, err)
		id, err := pipelinetest.CreateTrip(ctx, trips, "rider", up, trip.SettingsPatch{})
		require.NoError(t, err)
		st := testkit.WaitForTrip(t, e.trips, id, func(st trip.State) bool { return len(st.Stages) > 0 })
		require.NotEmpty(t, st.Stages)
		require.GreaterOrEqual(t, an.Sent(), int64(1))
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
