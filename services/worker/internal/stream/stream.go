package stream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/services/worker/internal/job"
)

// Stream names.
const (
	// Events is the fan-out stream of every trip event (limits retention).
	Events = "EVENTS"
	// Jobs is the work-queue stream of the jobs the relay derives.
	Jobs = "JOBS"
)

// ErrInvalidOptions is matched by every *OptionError.
var ErrInvalidOptions = errors.New("stream: invalid options")

// OptionError names the option that is wrong and why.
type OptionError struct {
	Field  string
	Reason string
}

// Error implements error.
func (e *OptionError) Error() string {
	return fmt.Sprintf("stream: option %s %s", e.Field, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidOptions) true.
func (e *OptionError) Is(target error) bool { return target == ErrInvalidOptions }

// Options shape the two streams. The zero value is not valid on purpose;
// start from DefaultOptions.
type Options struct {
	// Replicas of both streams: 1 in one-process mode, 3 in production.
	Replicas int
	// Duplicates is the JOBS dedup window (window.go); it must outlast a
	// relay restart, so the republished tail of a batch is dropped
	// (≥ MinJobsDuplicates).
	Duplicates time.Duration
	// EventsDuplicates is the EVENTS dedup window (window.go): it carries
	// no guarantee (the relay's expected sequence does), and JetStream
	// keeps one entry per message id for the whole window (about 130 B
	// each on the server's heap), EVENTS carrying four messages for every
	// JOBS one, so it is short.
	EventsDuplicates time.Duration
	// JobsMaxAge and JobsMaxBytes bound the work queue (a stuck consumer
	// must not fill the disk); the reconciler re-enqueues anything aged out.
	JobsMaxAge   time.Duration
	JobsMaxBytes int64
	// EventsMaxAge is 24 h: deleted trips age out of the fan-out.
	EventsMaxAge   time.Duration
	EventsMaxBytes int64
	// Storage is file in production; memory only for throwaway tests.
	Storage jetstream.StorageType
}

// DefaultOptions are ARCHITECTURE §5's settings for one replica.
func DefaultOptions() Options {
	return Options{
		Replicas:         1,
		Duplicates:       DefaultJobsDuplicates,
		EventsDuplicates: DefaultEventsDuplicates,
		JobsMaxAge:       7 * 24 * time.Hour,
		JobsMaxBytes:     1 << 30,
		EventsMaxAge:     24 * time.Hour,
		EventsMaxBytes:   4 << 30,
		Storage:          jetstream.FileStorage,
	}
}

// Validate names the first option out of range.
func (o Options) Validate() error {
	switch {
	case o.Replicas < 1 || o.Replicas > 5:
		return &OptionError{"Replicas", "must be 1..5"}
	case o.Duplicates < MinJobsDuplicates:
		return &OptionError{"Duplicates", fmt.Sprintf("must be at least %s (a relay restart must fall inside the dedup window)", MinJobsDuplicates)}
	case o.JobsMaxAge < o.Duplicates:
		return &OptionError{"JobsMaxAge", "must be at least Duplicates"}
	case o.JobsMaxBytes <= 0:
		return &OptionError{"JobsMaxBytes", "must be positive (the work queue is bounded)"}
	case o.EventsMaxAge <= 0 || o.EventsMaxAge > 24*time.Hour:
		return &OptionError{"EventsMaxAge", "must be in (0, 24h]: deleted trips must age out of EVENTS"}
	case o.EventsMaxBytes <= 0:
		return &OptionError{"EventsMaxBytes", "must be positive"}
	case o.EventsDuplicates < MinEventsDuplicates:
		return &OptionError{"EventsDuplicates", fmt.Sprintf("must be at least %s", MinEventsDuplicates)}
	case o.EventsDuplicates > o.EventsMaxAge:
		return &OptionError{"EventsDuplicates", "must not exceed EventsMaxAge"}
	}
	return nil
}

// EventsConfig is the EVENTS stream: every trip event, limits retention,
// stored under its trip's subject (EventsStoredSubject, subjects.go).
func (o Options) EventsConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:             Events,
		Description:      "Roadbook trip events (fan-out, 24 h)",
		Subjects:         []string{job.EventSubjectPrefix + ".>"},
		SubjectTransform: eventsTransform(),
		Retention:        jetstream.LimitsPolicy,
		Storage:          o.Storage,
		Replicas:         o.Replicas,
		MaxAge:           o.EventsMaxAge,
		MaxBytes:         o.EventsMaxBytes,
		Duplicates:       o.EventsDuplicates,
		Discard:          jetstream.DiscardOld,
	}
}

// JobsConfig is the JOBS stream: work-queue retention, so an acked job is
// gone and each job is handed to one consumer.
func (o Options) JobsConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        Jobs,
		Description: "Roadbook work queue (import, stages, analysis)",
		Subjects:    []string{job.SubjectPrefix + ".>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     o.Storage,
		Replicas:    o.Replicas,
		MaxAge:      o.JobsMaxAge,
		MaxBytes:    o.JobsMaxBytes,
		Duplicates:  o.Duplicates,
		// A full queue refuses new jobs (the relay retries, the cursor
		// stays) rather than dropping old ones silently.
		Discard: jetstream.DiscardNew,
	}
}

// Ensure creates or updates both streams.
func Ensure(ctx context.Context, js jetstream.JetStream, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	for _, cfg := range []jetstream.StreamConfig{o.EventsConfig(), o.JobsConfig()} {
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("stream: ensure %s: %w", cfg.Name, err)
		}
	}
	return nil
}
