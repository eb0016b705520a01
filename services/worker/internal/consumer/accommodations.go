package consumer

import (
	"context"
	"slices"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/tripstore"
)

// searchAccommodations runs one AccommodationsRequested: the finder's
// shortlists for the requested stages (all riding stages when none were
// named), recorded with AccommodationsFound. Without a finder the search is
// recorded not_configured — never a silent empty list. A failing provider
// is retried (a transient error); its last delivery records unavailable.
func (w *Workers) searchAccommodations(ctx context.Context, j job.Job, progress func()) error {
	search := j.Accommodations()
	l, err := w.trips.LoadAtLeast(ctx, tripstore.System(), j.TripID, j.At)
	if err != nil {
		return err
	}
	stages := requestedStages(l.State, search.StageIndexes)
	if len(stages) == 0 {
		return nil // nothing left to search for
	}
	cmd := trip.RecordAccommodationsFound{RadiusM: search.RadiusM, Availability: trip.NotConfigured}
	var found map[string][]trip.Accommodation
	if w.finder != nil {
		found, err = w.finder.FindAccommodations(ctx, l.State, stages, search.RadiusM)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		cmd.Availability = trip.Available
	}
	progress()
	for _, s := range stages {
		cands := found[s.ContentHash]
		if len(cands) > trip.MaxCandidates {
			cands = cands[:trip.MaxCandidates]
		}
		cmd.Stages = append(cmd.Stages, trip.FoundAccommodations{Stage: trip.StageRef{Index: s.Index, ContentHash: s.ContentHash}, Candidates: cands})
	}
	_, err = w.trips.Execute(ctx, tripstore.System(), j.TripID, cmd, options(j, "accommodations", job.ComputedFor(j.For)))
	return err
}

// requestedStages are the stages named by index, or every riding stage.
func requestedStages(st trip.State, indexes []int) []trip.Stage {
	var out []trip.Stage
	for i, s := range st.Stages {
		if len(indexes) == 0 && !s.RestDay || slices.Contains(indexes, i) {
			out = append(out, s)
		}
	}
	return out
}

// accommodationsFailed records the search as unavailable after its last
// delivery, so the trip says why it has no candidates.
func (w *Workers) accommodationsFailed(ctx context.Context, j job.Job, cause error) error {
	search := j.Accommodations()
	l, err := w.trips.Load(ctx, tripstore.System(), j.TripID)
	if err != nil {
		return err
	}
	cmd := trip.RecordAccommodationsFound{RadiusM: search.RadiusM, Availability: trip.Unavailable}
	for _, s := range requestedStages(l.State, search.StageIndexes) {
		cmd.Stages = append(cmd.Stages, trip.FoundAccommodations{Stage: trip.StageRef{Index: s.Index, ContentHash: s.ContentHash}})
	}
	_, err = w.trips.Execute(ctx, tripstore.System(), j.TripID, cmd, options(j, "accommodations-failed", job.ComputedFor(j.For)))
	return err
}
