package geocode

import (
	"context"
	"time"
)

// Point is a WGS-84 position (degrees).
type Point struct {
	Lat, Lon float64
}

// StageEnds is one stage to label: which stage (index and content hash, as
// the LabelsResolved event names it) and its two ends.
type StageEnds struct {
	Index       int
	ContentHash string
	Start, End  Point
}

// StageLabel is one labelled stage: where its two ends are, in words
// (Labels: a place's name, "23 km SE of Otta", or coordinates where no
// geocoder knows a place — never empty; outages leave the stage pending).
type StageLabel struct {
	Index       int
	ContentHash string
	Start, End  string
}

// LabelSink receives labels as they resolve, a few stages at a time; the
// worker wires it to tripstore Execute(trip.RecordLabels{…, Geocoder:
// geocoder}). It runs on the queue's goroutine: keep it short. An error is
// logged and the batch is not redelivered (the answers stay cached 24 h, so
// labelling the trip again is cheap).
type LabelSink func(ctx context.Context, tripID, geocoder string, labels []StageLabel) error

// LabelState is where a trip's labelling stands.
type LabelState int

// Label states, mapped by the API to PartProgress (COMPUTATION_STATE_…).
const (
	// LabelsRunning: some stages are still waiting for their turn.
	LabelsRunning LabelState = iota + 1
	// LabelsDone: every stage of the last request has been delivered.
	LabelsDone
	// LabelsUnavailable: the geocoder is down or refusing (breaker open);
	// the queue retries on its own and labels fill in afterwards.
	LabelsUnavailable
)

// String names the state as the API's ComputationState does.
func (s LabelState) String() string {
	switch s {
	case LabelsRunning:
		return "running"
	case LabelsDone:
		return "done"
	case LabelsUnavailable:
		return "unavailable"
	}
	return "unknown"
}

// LabelProgress is one trip's labelling progress (stages delivered of total).
type LabelProgress struct {
	State       LabelState
	Done, Total int
	// Reason says why labels are unavailable.
	Reason string
	// RetryAt is when the queue will try again (unavailable only).
	RetryAt time.Time
}

// Labeler is what the stage and analysis consumers call to have a trip's
// stage ends named with the configured geocoder. Label returns at once; the
// labels reach the LabelSink progressively. A new Label call for a trip
// replaces its pending request (the stages changed). *Queue implements it.
type Labeler interface {
	Label(ctx context.Context, tripID string, stages []StageEnds) error
	Progress(tripID string) (LabelProgress, bool)
}
