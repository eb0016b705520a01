package stream

import (
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/services/worker/internal/job"
)

// MaxDeliver is the number of deliveries a job gets before its failure is
// recorded (ARCHITECTURE §5).
const MaxDeliver = 5

// DefaultDurable is the one durable consumer every worker replica shares on
// JOBS (deploy/k8s names it in ROADBOOK_WORKER_CONSUMER and KEDA scales on
// its lag).
const DefaultDurable = "roadbook-worker"

// ConsumerOptions shape the durable pull consumer of the work queue.
type ConsumerOptions struct {
	// Durable names the consumer (default DefaultDurable). One durable
	// consumer covers every job kind (jobs.>) and the worker dispatches by
	// subject, so KEDA's lag on that one consumer is the whole backlog.
	Durable string
	// AckWait must exceed the p99 job time; long jobs also call
	// InProgress. It is the redelivery delay of a crashed worker.
	AckWait time.Duration
	// MaxAckPending bounds the jobs out at once across every replica.
	MaxAckPending int
}

// DefaultConsumerOptions: 30 s AckWait (a 627 km trip paces in well under a
// second; analysis reports progress), 256 jobs out at once.
func DefaultConsumerOptions() ConsumerOptions {
	return ConsumerOptions{Durable: DefaultDurable, AckWait: 30 * time.Second, MaxAckPending: 256}
}

// Validate names the first option out of range.
func (o ConsumerOptions) Validate() error {
	switch {
	case o.Durable != "" && !validDurable(o.Durable):
		return &OptionError{"Durable", fmt.Sprintf("%q must be 1–64 letters, digits, '-' or '_'", o.Durable)}
	case o.AckWait < 100*time.Millisecond:
		return &OptionError{"AckWait", "must be at least 100ms"}
	case o.MaxAckPending < 1:
		return &OptionError{"MaxAckPending", "must be positive"}
	}
	return nil
}

// durable is the consumer name, DefaultDurable when unset.
func (o ConsumerOptions) durable() string {
	if o.Durable == "" {
		return DefaultDurable
	}
	return o.Durable
}

// validDurable: JetStream refuses '.', '*', '>' and whitespace in names;
// Roadbook keeps to a portable subset.
func validDurable(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// MaxDeliveriesSubject is the JetStream advisory published when a job of
// the consumer used its last delivery without an ack (its worker died on
// it): the worker records the failure from it at once instead of waiting
// for the reconciler.
func (o ConsumerOptions) MaxDeliveriesSubject() string {
	return "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + Jobs + "." + o.durable()
}

// ConsumerConfig is the one durable pull consumer over every job kind
// (jobs.>): explicit acks, MaxDeliver 5 and no BackOff list (naks carry
// their own delay; a BackOff would replace AckWait for redeliveries,
// ARCHITECTURE §5).
func (o ConsumerOptions) ConsumerConfig() jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       o.durable(),
		Description:   "Roadbook workers (every job kind, dispatched by subject)",
		FilterSubject: job.SubjectPrefix + ".>",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       o.AckWait,
		MaxDeliver:    MaxDeliver,
		MaxAckPending: o.MaxAckPending,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	}
}
