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

// failures records RecordFailure calls.
type failures struct {
	mu   sync.Mutex
	jobs []job.Job
	errs []error
}

func (f *failures) Handle(context.Context, job.Job, func()) error { return nil }

func (f *failures) RecordFailure(_ context.Context, j job.Job, cause error, _ bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobs, f.errs = append(f.jobs, j), append(f.errs, cause)
	return nil
}

func (f *failures) recorded() []job.Job {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]job.Job(nil), f.jobs...)
}

func TestMaxDeliveriesAdvisory(t *testing.T) {
	t.Parallel()
	t.Run("a job whose last delivery was never answered is failed and deleted", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		n, err := testkit.StartNATS(t.TempDir(), -1)
		require.NoError(t, err)
		t.Cleanup(n.Stop)
		nc, err := nats.Connect(n.URL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		require.NoError(t, stream.Ensure(ctx, js, stream.DefaultOptions()))

		opts := stream.ConsumerOptions{Durable: "roadbook-worker-adv", AckWait: 100 * time.Millisecond, MaxAckPending: 10}
		cons, err := js.CreateOrUpdateConsumer(ctx, stream.Jobs, opts.ConsumerConfig())
		require.NoError(t, err)
		h := &failures{}
		adv, err := consumer.NewMaxDeliveries(nc, js, h, opts, nil)
		require.NoError(t, err)
		require.NoError(t, adv.Start(ctx))
		t.Cleanup(func() { _ = adv.Stop() })

		j := job.New(uuid.New(), uuid.New(), job.AnalysisFor{AnalysisID: uuid.NewString()})
		data, err := j.Encode()
		require.NoError(t, err)
		_, err = js.Publish(ctx, job.Subject(j.Kind, j.TripID), data)
		require.NoError(t, err)

		// A worker that takes the job and dies, five times over.
		for delivered := 0; delivered < stream.MaxDeliver; {
			batch, err := cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
			require.NoError(t, err)
			for range batch.Messages() {
				delivered++
			}
		}
		// The server notices the exhausted job when it next looks for work
		// for a pulling worker (the live replicas always pull).
		require.Eventually(t, func() bool {
			batch, err := cons.Fetch(1, jetstream.FetchMaxWait(200*time.Millisecond))
			require.NoError(t, err)
			for range batch.Messages() {
				t.Error("a job past its last delivery was delivered again")
			}
			return len(h.recorded()) == 1
		}, 30*time.Second, 10*time.Millisecond)
		require.Equal(t, j, h.recorded()[0])
		require.True(t, errors.Is(h.errs[0], consumer.ErrLastDeliveryLost))
		st, err := js.Stream(ctx, stream.Jobs)
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			info, err := st.Info(ctx)
			require.NoError(t, err)
			return info.State.Msgs == 0
		}, 30*time.Second, 10*time.Millisecond, "the work queue no longer holds the failed job")
	})
}
