package tripstore

import (
	"encoding/json"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/aggregate"
)

// Definition folds trip streams for aggregate.Load and aggregate.Execute.
var Definition = aggregate.Definition[trip.State]{
	Initial: func(info eventstore.StreamInfo) trip.State {
		id, _ := TripID(info.ID)
		s := trip.Load(id.String(), info.Owner, nil)
		return s
	},
	Evolve:    trip.Evolve,
	Summary:   summary,
	Snapshots: snapshots,
}

// SnapshotEvery is how many events apart a trip's state is stored whole.
// A load the folded-state cache cannot serve (a process's first touch of
// the trip: after a restart, on another replica, once the cache evicted it)
// reads the newest snapshot and folds at most this many events instead of
// the whole stream: on a trip re-paced 30 times (189 events, 31
// StagesComputed with their geometry) 3.1 ms instead of 143 ms
// (docs/BENCHMARKS.md, "Snapshots").
const SnapshotEvery = 25

// snapshots stores trip.State as JSON under a schema version derived from
// its shape (aggregate.JSONSnapshots), so a changed State never decodes an
// old snapshot.
var snapshots = func() *aggregate.SnapshotCodec[trip.State] {
	c, err := aggregate.JSONSnapshots[trip.State](SnapshotEvery)
	if err != nil {
		panic("tripstore: " + err.Error()) // a State JSON cannot carry; every test of this package fails here
	}
	return c
}()

// SummaryData is the JSON of a trip's list row (eventstore.Summary.Data):
// what a trip list shows without folding events. ListQuery.Match filters on
// its keys.
type SummaryData struct {
	DistanceM  float64 `json:"distanceM"`
	AscentM    float64 `json:"ascentM"`
	StageCount int     `json:"stageCount"`
	StartDate  string  `json:"startDate,omitempty"`
	EndDate    string  `json:"endDate,omitempty"`
	SourceKind string  `json:"sourceKind"`
	Shared     bool    `json:"shared"`
	Version    int64   `json:"version"`
	// Phase is the list's status (computing, failed, draft or ready), which
	// the typed status column (draft/ready) cannot tell alone.
	Phase trip.Phase `json:"phase,omitempty"`
	// ElevationKnown says whether AscentM means anything.
	ElevationKnown bool `json:"elevationKnown,omitempty"`
	// Deleted marks the row of a trip whose TripDeleted is recorded but whose
	// stream is not removed yet (DeleteStream failed after the append): list
	// readers skip the row and finish the removal.
	Deleted bool `json:"deleted,omitempty"`
}

// summary is the list row written with every append.
func summary(s trip.State) *eventstore.Summary {
	d := SummaryData{
		StageCount: len(s.Stages),
		SourceKind: sourceKind(s),
		Shared:     s.Share.Active(),
		Version:    s.Version,
		Phase:      s.Phase(),
		Deleted:    s.Deleted,
	}
	if s.Route != nil {
		d.DistanceM, d.AscentM = s.Route.DistanceM, s.Route.AscentM
		d.ElevationKnown = s.Route.ElevationKnown
	}
	if !s.Settings.StartDate.IsZero() {
		d.StartDate = s.Settings.StartDate.String()
	}
	if end := s.EndDate(); !end.IsZero() {
		d.EndDate = end.String()
	}
	data, err := json.Marshal(d)
	if err != nil {
		// SummaryData holds only numbers, strings and bools.
		panic("tripstore: summary does not marshal: " + err.Error())
	}
	return &eventstore.Summary{Title: s.Title, Status: string(s.Status()), Data: data}
}

func sourceKind(s trip.State) string {
	if s.Source.Kind != "" {
		return string(s.Source.Kind)
	}
	return "upload"
}
