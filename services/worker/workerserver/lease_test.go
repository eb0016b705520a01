package workerserver_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
)

func TestWorkerWaitsForTheLeaseBucket(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	es, err := postgres.Open(ctx, testkit.SchemaURL(t))
	require.NoError(t, err)
	t.Cleanup(es.Close)
	n, err := testkit.StartNATS(t.TempDir(), -1)
	require.NoError(t, err)
	t.Cleanup(n.Stop)
	nc, err := testkit.Connect(n.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	// A stream in the lease bucket's place that the bucket cannot become (a
	// KV bucket keeps limits retention): opening the lease fails, as it
	// does while a NATS cluster is still electing, until it is gone.
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "KV_" + relay.DefaultLeaseBucket, Subjects: []string{"blocker.>"}, Retention: jetstream.WorkQueuePolicy})
	require.NoError(t, err)

	srv, err := workerserver.New(workerserver.Config{Store: es, NATS: nc, Concurrency: 1, LeaseTTL: 2 * time.Second,
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	require.NoError(t, err)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(rctx) }()
	t.Cleanup(func() { cancel(); <-done })

	select {
	case err := <-done:
		done <- err // for the cleanup
		t.Fatalf("the worker gave up while the lease bucket could not be opened: %v", err)
	case <-time.After(3 * time.Second):
	}
	require.False(t, srv.Ready(), "not ready without the relay lease")
	require.NoError(t, js.DeleteStream(ctx, "KV_"+relay.DefaultLeaseBucket))
	require.Eventually(t, srv.Ready, 30*time.Second, 50*time.Millisecond, "the worker started once the bucket could be opened")
}

func TestLeaseTTLBelowOneSecondIsRefused(t *testing.T) {
	t.Parallel()
	n, err := testkit.StartNATS(t.TempDir(), -1)
	require.NoError(t, err)
	t.Cleanup(n.Stop)
	nc, err := testkit.Connect(n.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	_, err = workerserver.New(workerserver.Config{Store: &postgres.Store{}, NATS: nc, LeaseTTL: 500 * time.Millisecond})
	require.ErrorIs(t, err, workerserver.ErrInvalidConfig)
	require.ErrorContains(t, err, "LeaseTTL 500ms", "refused at New, not retried for ever by Run")
}
