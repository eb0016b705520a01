package job

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Kind names one kind of work; it is the second token of the job subject.
type Kind string

// The kinds of work (wire convention: jobs.<kind>.<tripID>).
const (
	// KindImport fetches a URL-sourced route and records RouteImported.
	KindImport Kind = "import"
	// KindStages paces the trip's route into stages.
	KindStages Kind = "stages"
	// KindAnalysis evaluates the alert rules of the requested stages.
	KindAnalysis Kind = "analysis"
	// KindAccommodations searches accommodations near stage ends
	// (AccommodationsRequested) and records AccommodationsFound.
	KindAccommodations Kind = "accommodations"
	// KindDetour routes the detours of waypoints with an estimate (one just
	// added, or those an edit of their stage put back on the estimate) and
	// records WaypointDetourRouted for each. It is no request a
	// trip waits for: without a routing engine, or when the engine finds no
	// route, the estimate stays and nothing is recorded.
	KindDetour Kind = "detour"
)

// Awaited reports whether the reconciler watches jobs of kind k: the trip
// records when their computation is requested and when it ends (import,
// stages, analysis), so one that never ended is stuck and is sent again.
// An accommodations search and a detour are not watched: the first is asked
// for again by the rider, and a detour's estimate stands until a routed one
// replaces it.
func Awaited(k Kind) bool {
	switch k {
	case KindImport, KindStages, KindAnalysis:
		return true
	}
	return false
}

// Kinds lists every kind, in pipeline order.
func Kinds() []Kind {
	return []Kind{KindImport, KindStages, KindAnalysis, KindAccommodations, KindDetour}
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	switch k {
	case KindImport, KindStages, KindAnalysis, KindAccommodations, KindDetour:
		return true
	}
	return false
}

// Subject prefixes of the two JetStream streams.
const (
	// SubjectPrefix is the JOBS stream's subject root.
	SubjectPrefix = "jobs"
	// EventSubjectPrefix is the EVENTS stream's subject root for trips.
	EventSubjectPrefix = "events.trip"
)

// Subject is the JOBS subject of a kind of work on a trip.
func Subject(k Kind, tripID uuid.UUID) string {
	return SubjectPrefix + "." + string(k) + "." + tripID.String()
}

// FilterSubject selects every job of a kind (the worker's one durable
// consumer takes jobs.> and dispatches by kind; this names one kind's share,
// for inspection).
func FilterSubject(k Kind) string {
	return SubjectPrefix + "." + string(k) + ".>"
}

// EventSubject is the EVENTS subject of one trip event: the short name is
// the last element of the payload's full proto name.
func EventSubject(tripID uuid.UUID, fullType string) string {
	short := fullType
	if i := strings.LastIndexByte(fullType, '.'); i >= 0 {
		short = fullType[i+1:]
	}
	return EventSubjectPrefix + "." + tripID.String() + "." + short
}

// MsgID is the Nats-Msg-Id of the job requested by an event: JetStream drops
// a second publish with the same id inside the stream's Duplicates window, so
// a relay that dies between publish and cursor save enqueues nothing twice.
func MsgID(k Kind, requestEventID uuid.UUID) string {
	return string(k) + ":" + requestEventID.String()
}

// Job is one job message. It names what to do, never the data to do it
// with: the worker decides on the trip as it is when the job runs (as its
// own relay handed it on, when that is at least as new as the request: At),
// and records the result with an append that expects that version exactly,
// so a job delayed behind an edit computes for what the trip is now and the
// trip records a result for vanished content as superseded.
type Job struct {
	TripID         uuid.UUID
	Kind           Kind
	RequestEventID uuid.UUID
	// For says what the work is for, typed by kind (for.go): ImportFor,
	// StagesFor, AnalysisFor, AccommodationsFor or DetourFor.
	For Target
	// At is the trip's stream version at the event that requested the job,
	// from the message's header (relay.HeaderStreamVersion), not from the
	// payload; 0 when unknown (a reconciler's re-send). A worker may decide
	// on any state at least that new (tripstore.Store.LoadAtLeast).
	At int64
}

// New is the job of kind f.Kind() on a trip, requested by an event.
func New(tripID, requestEventID uuid.UUID, f Target) Job {
	return Job{TripID: tripID, Kind: f.Kind(), RequestEventID: requestEventID, For: f}
}

// wire is a job message's JSON payload (wire convention:
// {"tripId","kind","requestEventId","computedFor"}): For travels as the one
// computedFor string of its kind.
type wire struct {
	TripID         uuid.UUID `json:"tripId"`
	Kind           Kind      `json:"kind"`
	RequestEventID uuid.UUID `json:"requestEventId"`
	ComputedFor    string    `json:"computedFor,omitempty"`
}

// ErrInvalidJob is matched by every refusal of a malformed job message.
var ErrInvalidJob = errors.New("job: invalid job message")

// Encode renders the job as its JSON payload.
func (j Job) Encode() ([]byte, error) {
	if err := j.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(wire{TripID: j.TripID, Kind: j.Kind, RequestEventID: j.RequestEventID, ComputedFor: j.For.computedFor()})
}

// Validate names the first thing wrong with a job.
func (j Job) Validate() error {
	switch {
	case j.TripID == uuid.Nil:
		return fmt.Errorf("%w: tripId is missing", ErrInvalidJob)
	case !j.Kind.Valid():
		return fmt.Errorf("%w: kind %q is not one of import, stages, analysis, accommodations, detour", ErrInvalidJob, j.Kind)
	case j.RequestEventID == uuid.Nil:
		return fmt.Errorf("%w: requestEventId is missing", ErrInvalidJob)
	case j.For == nil || j.For.Kind() != j.Kind:
		return fmt.Errorf("%w: a %s job says what it is for as a %T", ErrInvalidJob, j.Kind, j.For)
	}
	return nil
}

// Decode parses and validates a job payload. The kind comes back even from
// a payload refused for its computedFor, for the log line.
func Decode(data []byte) (Job, error) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return Job{}, fmt.Errorf("%w: %v", ErrInvalidJob, err)
	}
	j := Job{TripID: w.TripID, Kind: w.Kind, RequestEventID: w.RequestEventID}
	if j.Kind.Valid() {
		f, err := parseFor(j.Kind, w.ComputedFor)
		if err != nil {
			return j, err
		}
		j.For = f
	}
	return j, j.Validate()
}
