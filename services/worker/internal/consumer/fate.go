package consumer

import (
	"context"
	"errors"
	"time"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/job"
)

// Action is what happens to a job message after its handler returned.
type Action int

// The actions.
const (
	// Ack: done (or nothing to do); the work queue deletes the message.
	Ack Action = iota
	// Retry: NakWithDelay; JetStream redelivers after Delay.
	Retry
	// Fail: record the failure event, then ack (delete) the message.
	Fail
	// Drop: the message is unreadable; Term it (no failure can be recorded
	// for a job that names no trip).
	Drop
)

// String names the action for logs and metrics.
func (a Action) String() string {
	return [...]string{"ack", "retry", "fail", "drop"}[a]
}

// Fate is an action and, for Retry, its delay.
type Fate struct {
	Action Action
	Delay  time.Duration
	// Retryable is what the failure event says, for Fail.
	Retryable bool
}

// Settle is THE function mapping a handler's error to the message's fate:
//
//   - nil, or a duplicate derived event id (an earlier delivery already
//     recorded it) → ack;
//   - the trip is gone (deleted, or an analysis it no longer knows) → ack:
//     there is nothing left to record on;
//   - an unreadable job → drop (Term);
//   - a permanent error (a refusal of the domain's, a route that cannot be
//     paced) → fail now;
//   - anything else is transient → NakWithDelay with a growing delay, and on
//     the last of maxDeliver deliveries → fail (retryable).
func Settle(err error, delivered uint64, maxDeliver int) Fate {
	var imp ImportFailure
	switch {
	case err == nil, errors.Is(err, eventstore.ErrDuplicateEvent):
		return Fate{Action: Ack}
	case errors.Is(err, trip.ErrNotFound):
		return Fate{Action: Ack}
	case errors.Is(err, job.ErrInvalidJob):
		return Fate{Action: Drop}
	case errors.Is(err, ErrPermanent), errors.Is(err, trip.ErrInvalidArgument), errors.Is(err, trip.ErrCannotPlan):
		return Fate{Action: Fail}
	case errors.As(err, &imp) && !imp.Retryable():
		return Fate{Action: Fail}
	}
	if maxDeliver > 0 && delivered >= uint64(maxDeliver) && !errors.Is(err, context.Canceled) {
		return Fate{Action: Fail, Retryable: true}
	}
	return Fate{Action: Retry, Delay: retryDelay(delivered)}
}

// retryDelay grows with the delivery count: 1 s, 2 s, 4 s, 8 s… capped at
// 30 s, so a source that is down is not hammered by every queued job.
func retryDelay(delivered uint64) time.Duration {
	if delivered < 1 {
		delivered = 1
	}
	d := time.Second << min(delivered-1, 5)
	return min(d, 30*time.Second)
}
