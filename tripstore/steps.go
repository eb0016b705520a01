package tripstore

import (
	"context"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore/aggregate"
)

// Step is one command of ExecuteSteps with the ids of its events: EventID
// derives the id of the step's i-th event, as Options.EventID does for a
// command appended alone, so a step lands with the same ids either way and
// a redelivered job's duplicate is refused the same.
type Step struct {
	Command trip.Command
	EventID func(i int) uuid.UUID
}

// ExecuteSteps decides steps in order, each on the state the events of the
// ones before leave, and appends all their events in one append: a worker
// that records two results of one job at once (an analysis's labels and its
// final result) pays one transaction and one commit instead of two. Any
// step's refusal refuses the whole; a conflict reloads and decides every
// step again, as Execute does. opts.EventID, Idempotency, Respond and
// Collection are not used (a worker's results have none).
func (s *Store) ExecuteSteps(ctx context.Context, actor Actor, tripID uuid.UUID, steps []Step, opts Options) (Result, error) {
	now := s.now()
	var counts []int // events per step, of the attempt being appended
	rule := func(l Loaded) ([]proto.Message, error) {
		if l.Exists {
			if err := visible(actor, l); err != nil {
				return nil, err
			}
		}
		counts = counts[:0]
		st := l.State
		var all []proto.Message
		for _, step := range steps {
			events, err := trip.Decide(st, step.Command, now)
			if err != nil {
				return nil, err
			}
			counts = append(counts, len(events))
			all = append(all, events...)
			st = evolve(st, events)
		}
		return all, nil
	}
	eventID := func(i int) uuid.UUID {
		for k, n := range counts {
			if i < n {
				return steps[k].EventID(i)
			}
			i -= n
		}
		return uuid.New() // not reached: Execute asks only for the events the rule returned
	}
	res, err := aggregate.Execute(ctx, s.events, s.def, StreamID(tripID), rule, aggregate.Options{
		Owner:    actor.User,
		Metadata: withTrace(ctx, opts.Metadata),
		EventID:  eventID,
		BlobRefs: opts.BlobRefs,
	})
	if err != nil {
		return Result{}, translate(err)
	}
	return res, nil
}
