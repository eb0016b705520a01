package stream

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/services/worker/internal/job"
)

// MaxDeliver is the number of deliveries a job gets before its failure is
// recorded (ARCHITECTURE §5).
const MaxDeliver = 5

// ConsumerOptions shape the durable pull consumer of one job kind.
type ConsumerOptions struct {
	// AckWait must exceed the p99 job time; long jobs also call
	// InProgress. It is the redelivery delay of a crashed worker.
	AckWait time.Duration
	// MaxAckPending bounds the jobs out at once across every replica.
	MaxAckPending int
}

// DefaultConsumerOptions: 30 s AckWait (a 627 km trip paces in well under a
// second; analysis reports progress), 256 jobs out at once.
func DefaultConsumerOptions() ConsumerOptions {
	return ConsumerOptions{AckWait: 30 * time.Second, MaxAckPending: 256}
}

// Validate names the first option out of range.
func (o ConsumerOptions) Validate() error {
	switch {
	case o.AckWait < 100*time.Millisecond:
		return &OptionError{"AckWait", "must be at least 100ms"}
	case o.MaxAckPending < 1:
		return &OptionError{"MaxAckPending", "must be positive"}
	}
	return nil
}

// DurableName is the consumer of a job kind, shared by every replica.
func DurableName(k job.Kind) string { return "worker-" + string(k) }

// ConsumerConfig is the durable pull consumer of one kind: explicit acks,
// MaxDeliver 5 and no BackOff list (naks carry their own delay; a BackOff
// would replace AckWait for redeliveries, ARCHITECTURE §5).
func (o ConsumerOptions) ConsumerConfig(k job.Kind) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       DurableName(k),
		Description:   "Roadbook " + string(k) + " workers",
		FilterSubject: job.FilterSubject(k),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       o.AckWait,
		MaxDeliver:    MaxDeliver,
		MaxAckPending: o.MaxAckPending,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	}
}
