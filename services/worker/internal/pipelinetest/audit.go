package pipelinetest

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/eventstore"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/tripstore"
)

// Report is what Audit counted in one trip stream.
type Report struct {
	Events []eventstore.RecordedEvent
	// Counts by short event type name.
	Counts map[string]int
}

// Audit reads a trip stream and checks the invariants the pipeline must keep
// whatever crashed: versions 1..n without a gap, and for every requested
// computation at most one terminal event (import: one RouteImported or
// RouteImportFailed; each stages key: one StagesComputed/StagesFailed; each
// analysis id: one AnalysisCompleted/AnalysisFailed). It returns an error
// naming the first violation.
func Audit(ctx context.Context, es eventstore.Store, tripID uuid.UUID) (Report, error) {
	evs, err := es.ReadStream(ctx, tripstore.StreamID(tripID), 0, 0)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Events: evs, Counts: map[string]int{}}
	stages := map[string]int{}
	analyses := map[string]int{}
	requested := map[string]bool{}
	for i, ev := range evs {
		if ev.Version != int64(i+1) {
			return rep, fmt.Errorf("trip %s: event %d has version %d", tripID, i+1, ev.Version)
		}
		name := string(ev.Payload.ProtoReflect().Descriptor().Name())
		rep.Counts[name]++
		switch p := ev.Payload.(type) {
		case *eventsv1.StagesComputed:
			stages[p.GetComputedFor().String()]++
		case *eventsv1.StagesFailed:
			stages[p.GetComputedFor().String()]++
		case *eventsv1.AnalysisRequested:
			requested[p.GetAnalysisId()] = true
		case *eventsv1.AnalysisCompleted:
			analyses[p.GetAnalysisId()]++
		case *eventsv1.AnalysisFailed:
			analyses[p.GetAnalysisId()]++
		}
	}
	if n := rep.Counts["RouteImported"] + rep.Counts["RouteImportFailed"]; n > 1 {
		return rep, fmt.Errorf("trip %s: %d terminal import events", tripID, n)
	}
	for k, n := range stages {
		if n > 1 {
			return rep, fmt.Errorf("trip %s: %d terminal stages events for %s", tripID, n, k)
		}
	}
	for id, n := range analyses {
		if n > 1 {
			return rep, fmt.Errorf("trip %s: %d terminal events for analysis %s", tripID, n, id)
		}
		if !requested[id] {
			return rep, fmt.Errorf("trip %s: a terminal event for analysis %s that was never requested", tripID, id)
		}
	}
	return rep, nil
}

// Terminal reports whether every requested computation of the trip reached a
// terminal event (import, stages, every analysis).
func (r Report) Terminal() bool {
	requested, done := 0, 0
	for _, ev := range r.Events {
		switch ev.Payload.(type) {
		case *eventsv1.AnalysisRequested:
			requested++
		case *eventsv1.AnalysisCompleted, *eventsv1.AnalysisFailed:
			done++
		}
	}
	return requested > 0 && requested == done
}
