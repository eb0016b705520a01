package job

import (
	"fmt"
	"strconv"
	"strings"
)

// Target says what a job's work is for, one type per kind. On the wire it is
// the payload's one computedFor string, written and read here only.
type Target interface {
	// Kind is the kind of work this is the subject of.
	Kind() Kind
	// computedFor is the wire form.
	computedFor() string
}

// ImportFor is an import's source: the link the trip was created from.
type ImportFor struct{ SourceURL string }

// StagesFor is the content a stages job was requested for: the route hash
// (an imported route, a copy without stages) or the pacing settings hash (a
// settings change). It is informational: the worker computes for what the
// trip requests when the job runs (trip.StagesProgress), and does nothing
// when nothing is requested.
type StagesFor struct{ Hash string }

// AnalysisFor is the analysis a job runs.
type AnalysisFor struct{ AnalysisID string }

// AccommodationsFor is one accommodation search: the radius around each
// stage end, and the stages named (none: every riding stage).
type AccommodationsFor struct {
	RadiusM      int
	StageIndexes []int
}

// DetourFor are the waypoints whose detour a job routes: one just added, or
// those an edit of their stage put back on the estimate.
type DetourFor struct{ WaypointIDs []string }

func (ImportFor) Kind() Kind         { return KindImport }
func (StagesFor) Kind() Kind         { return KindStages }
func (AnalysisFor) Kind() Kind       { return KindAnalysis }
func (AccommodationsFor) Kind() Kind { return KindAccommodations }
func (DetourFor) Kind() Kind         { return KindDetour }

func (f ImportFor) computedFor() string   { return f.SourceURL }
func (f StagesFor) computedFor() string   { return f.Hash }
func (f AnalysisFor) computedFor() string { return f.AnalysisID }

// computedFor is the radius in metres, then "/" and the stage indexes when
// the request named some ("5000", "8000/0,2").
func (f AccommodationsFor) computedFor() string {
	out := strconv.Itoa(f.RadiusM)
	for i, x := range f.StageIndexes {
		sep := ","
		if i == 0 {
			sep = "/"
		}
		out += sep + strconv.Itoa(x)
	}
	return out
}

// computedFor is the waypoint ids, comma-separated.
func (f DetourFor) computedFor() string { return strings.Join(f.WaypointIDs, ",") }

// ComputedFor is f's wire form, which the results' event metadata record
// (eventstore.Metadata.ComputedFor).
func ComputedFor(f Target) string {
	if f == nil {
		return ""
	}
	return f.computedFor()
}

// parseFor reads the computedFor of a job of kind k.
func parseFor(k Kind, s string) (Target, error) {
	switch k {
	case KindImport:
		return ImportFor{SourceURL: s}, nil
	case KindStages:
		return StagesFor{Hash: s}, nil
	case KindAnalysis:
		return AnalysisFor{AnalysisID: s}, nil
	case KindDetour:
		if s == "" {
			return DetourFor{}, nil
		}
		return DetourFor{WaypointIDs: strings.Split(s, ",")}, nil
	case KindAccommodations:
		r, idx, _ := strings.Cut(s, "/")
		radius, err := strconv.Atoi(r)
		if err != nil {
			return nil, fmt.Errorf("%w: accommodations computedFor %q has no radius", ErrInvalidJob, s)
		}
		f := AccommodationsFor{RadiusM: radius}
		if idx == "" {
			return f, nil
		}
		for x := range strings.SplitSeq(idx, ",") {
			i, err := strconv.Atoi(x)
			if err != nil || i < 0 {
				return nil, fmt.Errorf("%w: accommodations computedFor %q has a bad stage index", ErrInvalidJob, s)
			}
			f.StageIndexes = append(f.StageIndexes, i)
		}
		return f, nil
	}
	return nil, fmt.Errorf("%w: kind %q", ErrInvalidJob, k)
}

// Analysis is an analysis job's target (zero for another kind).
func (j Job) Analysis() AnalysisFor { f, _ := j.For.(AnalysisFor); return f }

// Accommodations is an accommodations job's target (zero for another
// kind).
func (j Job) Accommodations() AccommodationsFor { f, _ := j.For.(AccommodationsFor); return f }

// Detour is a detour job's target (zero for another kind).
func (j Job) Detour() DetourFor { f, _ := j.For.(DetourFor); return f }
