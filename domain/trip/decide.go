package trip

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// Event is one stored event: a message of roadbook.events.v1.
type Event = proto.Message

// Decide returns the events cmd produces on state s, or a *Error refusing it.
// now is the injected clock, read only for the lock rule (today in UTC). It
// never mutates s. An empty, nil-error answer means "nothing to record" (a
// redelivered worker result).
func Decide(s State, cmd Command, now time.Time) ([]Event, error) {
	today := DateOf(now)
	switch c := cmd.(type) {
	case Create:
		return decideCreate(s, c)
	case Duplicate:
		return decideDuplicate(s, c)
	case RecordRouteImported:
		return decideRouteImported(s, c)
	case RecordRouteImportFailed:
		return decideRouteImportFailed(s, c)
	case RecordStagesComputed:
		return decideStagesComputed(s, c)
	case RecordStagesFailed:
		return decideStagesFailed(s, c)
	case UpdateSettings:
		return decideUpdateSettings(s, c, today)
	case InsertStage:
		return decideInsertStage(s, c, today)
	case UpdateStage:
		return decideUpdateStage(s, c, today)
	case MoveStage:
		return decideMoveStage(s, c, today)
	case DeleteStage:
		return decideDeleteStage(s, c, today)
	case AddRestDay:
		return decideAddRestDay(s, c, today)
	case AddWaypoint:
		return decideAddWaypoint(s, c, today)
	case RestoreStageLayout:
		return decideRestoreStageLayout(s, c, today)
	case RecordWaypointDetour:
		return decideWaypointDetour(s, c)
	case RecordAccommodationsFound:
		return decideAccommodationsFound(s, c)
	case RescanAccommodations:
		return decideRescanAccommodations(s, c, today)
	case ChooseAccommodation:
		return decideChooseAccommodation(s, c, today)
	case Analyze:
		return decideAnalyze(s, c, today)
	case RecordAnalysis:
		return decideRecordAnalysis(s, c)
	case RecordAnalysisFailed:
		return decideAnalysisFailed(s, c)
	case RecordLabels:
		return decideLabels(s, c)
	case RecordLabelsUnavailable:
		return decideLabelsUnavailable(s, c)
	case Share:
		return decideShare(s, c, today)
	case Unshare:
		return decideUnshare(s, c, today)
	case Delete:
		return decideDelete(s, c, today)
	}
	return nil, invalid("command", "unknown command %T", cmd)
}

// guard is the checks a caller write passes, in the order ARCHITECTURE §3
// fixes: existence, lock, precondition, version.
type guard struct {
	// lock: refused on a started trip (structural writes and settings).
	lock bool
	// stages: needs stages, refused while they are being computed.
	stages bool
	// version is the trip version the caller read.
	version int64
}

// check runs the guards.
func (s State) check(today Date, g guard) error {
	if !s.Exists || s.Deleted {
		return errNotFound()
	}
	if g.lock && s.Locked(today) {
		return &Error{Code: CodeLocked, Message: "the trip has started (its start date is today or earlier in UTC), so its plan can no longer change"}
	}
	if g.stages {
		if err := s.stagesAvailable(); err != nil {
			return err
		}
	}
	if g.version != s.Version {
		return &Error{Code: CodeVersionConflict, CurrentVersion: s.Version,
			Message: fmt.Sprintf("the trip is at version %d; read it again and retry with that version", s.Version)}
	}
	return nil
}

// stagesAvailable refuses a write that needs stages while they are being
// computed, naming what to wait for.
func (s State) stagesAvailable() error {
	wait := func(c Computation, msg string) error {
		return &Error{Code: CodePreconditionFailed, Awaiting: c, Message: msg}
	}
	switch {
	case s.RouteImport.Status == ComputationRequested:
		return wait(ComputationRoute, "the route is still being imported; read the trip again shortly")
	case s.RouteImport.Status == ComputationFailed:
		return wait(ComputationRoute, "the route import failed, so the trip has no stages")
	case s.StagesProgress.Status == ComputationRequested:
		return wait(ComputationStages, "stages are being computed; read the trip again shortly")
	case len(s.Stages) == 0:
		return wait(ComputationStages, "the trip has no stages yet")
	}
	return nil
}

// errNotFound is the one not-found answer: a missing trip and a deleted one
// read the same.
func errNotFound() *Error {
	return &Error{Code: CodeNotFound, Message: "trip not found"}
}

// analysisNamespace derives the ids of analyses Decide requests by itself
// (after stage changes), so a replayed decision names the same analysis.
var analysisNamespace = uuid.MustParse("4f0a3b8e-6d1c-5e2a-9b7f-2c8d1e0a6b35")

// withAnalysis appends an AnalysisRequested for the stages whose content the
// events create (content hashes not present before), so only affected
// stages are re-analysed (DOMAIN §4).
func withAnalysis(s State, events []Event, reason AnalysisReason) []Event {
	before := map[string]bool{}
	for _, st := range s.Stages {
		before[st.ContentHash] = true
	}
	next := s
	for _, e := range events {
		next = Evolve(next, e)
	}
	var refs []*eventsv1.StageRef
	for _, st := range next.Stages {
		if !before[st.ContentHash] {
			refs = append(refs, &eventsv1.StageRef{Index: uint32(st.Index), ContentHash: st.ContentHash})
		}
	}
	if len(refs) == 0 {
		return events
	}
	position := s.StreamVersion + int64(len(events)) + 1
	id := uuid.NewSHA1(analysisNamespace, fmt.Appendf(nil, "%s/%d", s.ID, position)).String()
	return append(events, &eventsv1.AnalysisRequested{AnalysisId: id, Stages: refs, Reason: analysisReasonPB[reason],
		EstimatedWaypointIds: rerouted(s, next)})
}

// applied folds events onto s (for Decide's own look-ahead).
func applied(s State, events ...Event) State {
	for _, e := range events {
		s = Evolve(s, e)
	}
	return s
}
