package stream

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

func TestOptions(t *testing.T) {
	t.Parallel()
	t.Run("the defaults are valid and follow ARCHITECTURE §5", func(t *testing.T) {
		t.Parallel()
		o := DefaultOptions()
		require.NoError(t, o.Validate())
		jobs := o.JobsConfig()
		require.Equal(t, jetstream.WorkQueuePolicy, jobs.Retention)
		require.Equal(t, jetstream.FileStorage, jobs.Storage)
		require.GreaterOrEqual(t, jobs.Duplicates, MinJobsDuplicates)
		require.Positive(t, jobs.MaxBytes)
		events := o.EventsConfig()
		require.Equal(t, jetstream.LimitsPolicy, events.Retention)
		require.Equal(t, 24*time.Hour, events.MaxAge)
		c := DefaultConsumerOptions().ConsumerConfig()
		require.Equal(t, 5, c.MaxDeliver)
		require.Equal(t, jetstream.AckExplicitPolicy, c.AckPolicy)
		require.Empty(t, c.BackOff, "a BackOff list would replace AckWait for redeliveries")
		require.Equal(t, "jobs.>", c.FilterSubject, "one durable consumer covers every kind, so KEDA sees the whole backlog")
		require.Equal(t, "roadbook-worker", c.Durable)
		require.Equal(t, "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.JOBS.roadbook-worker", DefaultConsumerOptions().MaxDeliveriesSubject())
	})
	t.Run("the consumer name is configurable and checked", func(t *testing.T) {
		t.Parallel()
		o := DefaultConsumerOptions()
		o.Durable = "roadbook-worker-blue"
		require.NoError(t, o.Validate())
		require.Equal(t, "roadbook-worker-blue", o.ConsumerConfig().Durable)
		o.Durable = "jobs.>"
		var oe *OptionError
		require.ErrorAs(t, o.Validate(), &oe)
		require.Equal(t, "Durable", oe.Field)
	})
	t.Run("a JOBS dedup window shorter than a minute is refused naming the option", func(t *testing.T) {
		t.Parallel()
		o := DefaultOptions()
		o.Duplicates = MinJobsDuplicates - time.Second
		err := o.Validate()
		require.ErrorIs(t, err, ErrInvalidOptions)
		var oe *OptionError
		require.ErrorAs(t, err, &oe)
		require.Equal(t, "Duplicates", oe.Field)
		o.Duplicates = MinJobsDuplicates
		require.NoError(t, o.Validate())
	})
	t.Run("events kept longer than 24 h are refused", func(t *testing.T) {
		t.Parallel()
		o := DefaultOptions()
		o.EventsMaxAge = 48 * time.Hour
		require.ErrorIs(t, o.Validate(), ErrInvalidOptions)
	})
	t.Run("a tiny AckWait is refused", func(t *testing.T) {
		t.Parallel()
		require.ErrorIs(t, ConsumerOptions{AckWait: time.Millisecond, MaxAckPending: 1}.Validate(), ErrInvalidOptions)
	})
}
