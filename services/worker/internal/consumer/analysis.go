package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/tripstore"
)

// analyse runs one requested analysis in parts: the offline rules first
// (AnalysisPartCompleted, when data providers follow), then labels
// (LabelsResolved), then each data provider, and finally AnalysisCompleted
// with everything — each part a progress event WatchTrip and get_trip show.
func (w *Workers) analyse(ctx context.Context, j job.Job, progress func()) error {
	// The stages append that requested the analysis was this process's
	// (or, relayed here, handed to its cache): no read when it is cached.
	l, err := w.trips.LoadAtLeast(ctx, tripstore.System(), j.TripID, j.At)
	if err != nil {
		return err
	}
	st := l.State
	a, ok := findAnalysis(st, j.Analysis().AnalysisID)
	if !ok || a.Status != trip.ComputationRequested {
		return nil // unknown, or already terminal: a redelivery
	}
	res, err := w.offline(st)
	if err != nil {
		return err
	}
	// The offline rules land as a progress part when data providers are
	// still to be asked (seconds each, over the network); with none, the
	// final result follows at once and carries them: one append, one
	// relayed event and one fan-out fewer per analysis.
	if len(w.providers) > 0 {
		results := res.forRefs(st, a.Stages)
		if err := w.record(ctx, j, "geometry", trip.RecordAnalysis{AnalysisID: a.ID, Stages: results}); err != nil {
			return err
		}
		progress()
	}

	present := presentStages(st, a.Stages)
	// With no data provider to wait for, the labels land with the final
	// result (one append, one commit and one relayed batch fewer per
	// analysis that labels); otherwise at once, as progress while the
	// providers answer.
	var labels trip.Command
	if unlabelled := unlabelledStages(st); len(unlabelled) > 0 {
		if len(w.providers) == 0 {
			labels = w.labelCommand(ctx, j, unlabelled)
		} else {
			w.label(ctx, j, "labels", unlabelled)
		}
		progress()
	}

	for _, f := range trip.Families() {
		if f.Provided() {
			res.families[f] = trip.NotConfigured
		}
	}
	if res.reasons == nil {
		res.reasons = map[trip.Family]string{}
	}
	for _, p := range w.providers {
		pr, err := p.Analyze(ctx, st, present)
		status := trip.Available
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			status = trip.Unavailable
			w.logger.Warn("data provider unavailable", slog.String("trip_id", j.TripID.String()), slog.Any("families", p.Families()), slog.Any("error", err))
		}
		for _, f := range p.Families() {
			res.families[f] = status
			if err != nil {
				res.reasons[f] = unavailableReason(err)
			}
		}
		if err == nil {
			for h, as := range pr.StageAlerts {
				res.byHash[h] = append(res.byHash[h], as...)
			}
			res.trip = append(res.trip, pr.TripAlerts...)
			for h, r := range pr.Resupply {
				res.resupply[h] = r
			}
			for h, wx := range pr.Weather {
				res.weather[h] = wx
			}
		}
		progress()
	}
	res.raiseFordsForRain()
	res.tripHeadwind(st)
	final := trip.RecordAnalysis{AnalysisID: a.ID, Stages: res.forRefs(st, a.Stages), TripAlerts: res.trip, Final: true}
	if labels != nil {
		return w.recordWithLabels(ctx, j, labels, final)
	}
	return w.record(ctx, j, "final", final)
}

// recordWithLabels appends the labels and the final result in one append
// (tripstore.ExecuteSteps), each step's events with the ids it derives when
// appended alone ("labels", "analysis:final"), so a redelivery is refused
// as a duplicate either way. Should the trip refuse the pair (a label it
// cannot take), the two are recorded one after the other as before: labels
// never fail an analysis.
func (w *Workers) recordWithLabels(ctx context.Context, j job.Job, labels trip.Command, final trip.RecordAnalysis) error {
	steps := []tripstore.Step{
		{Command: labels, EventID: func(i int) uuid.UUID { return DerivedID(j.RequestEventID, "labels", i) }},
		{Command: final, EventID: func(i int) uuid.UUID { return DerivedID(j.RequestEventID, "analysis:final", i) }},
	}
	_, err := w.trips.ExecuteSteps(ctx, tripstore.System(), j.TripID, steps, options(j, "analysis:final", final.AnalysisID))
	var refused *trip.Error
	if !errors.As(err, &refused) {
		return err
	}
	w.recordLabels(ctx, j, "labels", labels)
	return w.record(ctx, j, "final", final)
}

// record appends one analysis step; a duplicate derived id means an earlier
// delivery recorded this step already, so the work moves on to the next.
func (w *Workers) record(ctx context.Context, j job.Job, step string, c trip.RecordAnalysis) error {
	_, err := w.trips.Execute(ctx, tripstore.System(), j.TripID, c, options(j, "analysis:"+step, c.AnalysisID))
	if isDuplicate(err) && !c.Final {
		return nil
	}
	return err
}

// label asks the labeler for the stages that have no labels yet (so stages
// whose labels were lost with a worker, or were unavailable, are labelled
// again by the next analysis) and records what it answered. Labels never
// fail the analysis: when they cannot be produced (no geocoder, the geocoder
// down) LabelsUnavailable records why, and progress says "unavailable"
// instead of "pending" forever.
func (w *Workers) label(ctx context.Context, j job.Job, step string, stages []trip.Stage) {
	if cmd := w.labelCommand(ctx, j, stages); cmd != nil {
		w.recordLabels(ctx, j, step, cmd)
	}
}

// labelCommand asks the labeler for the stages' labels and returns the
// command that records its answer: RecordLabels, or RecordLabelsUnavailable
// with the reason when there is no geocoder or it failed. nil: a progressive
// labeler, whose labels arrive through its own sink.
func (w *Workers) labelCommand(ctx context.Context, j job.Job, stages []trip.Stage) trip.Command {
	geocoder, reason := "", "no geocoder is configured"
	var labels []trip.StageLabel
	var err error
	if w.labeler != nil {
		geocoder = w.labeler.Name()
		labels, err = w.labeler.Labels(ctx, j.TripID, stages)
		if err == nil && len(labels) == 0 {
			return nil // a progressive labeler: the labels arrive through its sink
		}
		if err != nil {
			reason = "geocoder unavailable: " + err.Error()
			w.logger.Warn("labels unavailable", slog.String("trip_id", j.TripID.String()), slog.Any("error", err))
		}
	}
	if w.labeler == nil || err != nil {
		refs := make([]trip.StageRef, len(stages))
		for i, s := range stages {
			refs[i] = trip.StageRef{Index: s.Index, ContentHash: s.ContentHash}
		}
		return trip.RecordLabelsUnavailable{Stages: refs, Reason: reason, Geocoder: geocoder}
	}
	return trip.RecordLabels{Labels: labels, Geocoder: geocoder}
}

// recordLabels appends a labelCommand's command; a failure is logged, never
// the analysis's.
func (w *Workers) recordLabels(ctx context.Context, j job.Job, step string, cmd trip.Command) {
	_, err := w.trips.Execute(ctx, tripstore.System(), j.TripID, cmd, options(j, step, job.ComputedFor(j.For)))
	if err != nil && !isDuplicate(err) {
		w.logger.Warn("recording labels failed", slog.String("trip_id", j.TripID.String()), slog.Any("error", err))
	}
}

// Relabel labels again the stages of the analysis job's trip that still
// have none — the reconciler's remedy for labels lost with a worker (the
// Nominatim queue is in memory). step makes the recorded event ids distinct
// per attempt.
func (w *Workers) Relabel(ctx context.Context, j job.Job, step string, stages []trip.Stage) {
	w.label(ctx, j, step, stages)
}

// unlabelledStages are the trip's stages no geocoder has answered for yet.
func unlabelledStages(st trip.State) []trip.Stage {
	var out []trip.Stage
	for _, s := range st.Stages {
		if !s.Labelled {
			out = append(out, s)
		}
	}
	return out
}

// offlineResult is what the offline rules found, by stage content.
type offlineResult struct {
	byHash   map[string][]trip.Alert
	trip     []trip.Alert
	families map[trip.Family]trip.Availability
	// reasons say why, for the unavailable families.
	reasons map[trip.Family]string
	// resupply and weather are the providers' per-stage results.
	resupply map[string]*trip.Resupply
	weather  map[string]*trip.Weather
}

// offline runs alert.Evaluate over every current stage (the rules look at
// neighbours: continuity, rest-day rhythm). When no time zone can be found
// for a dated stage, the date rules are reported unavailable and the rest
// still run.
func (w *Workers) offline(st trip.State) (offlineResult, error) {
	res := offlineResult{byHash: map[string][]trip.Alert{}, families: map[trip.Family]trip.Availability{},
		resupply: map[string]*trip.Resupply{}, weather: map[string]*trip.Weather{}}
	for _, f := range trip.SourceFamilies(alert.FamilyGeometry) {
		res.families[f] = trip.Available
	}
	stages, dated := trip.AlertStages(st.Stages)
	set := st.Settings.Pacing()
	var zones alert.ZoneFinder
	var zerr error
	if dated {
		zones, zerr = w.zoneFinder()
	}
	var alerts []alert.Alert
	var err error
	if zerr == nil {
		alerts, err = alert.Evaluate(stages, set, zones)
	}
	if zerr != nil || errors.Is(err, alert.ErrNoZone) {
		for i := range stages {
			stages[i].Date = time.Time{}
		}
		res.families[trip.FamilyDaylight], res.families[trip.FamilyCalendar] = trip.Unavailable, trip.Unavailable
		res.reasons = map[trip.Family]string{trip.FamilyDaylight: "no time zone found for the stage ends", trip.FamilyCalendar: "no time zone found for the stage ends"}
		alerts, err = alert.Evaluate(stages, set, nil)
	}
	if err != nil {
		if errors.Is(err, alert.ErrInvalidInput) {
			return res, Permanent(err)
		}
		return res, err
	}
	alerts = append(alerts, st.SeasonalClosures()...)
	borders, err := w.borders(stages)
	if err != nil {
		res.families[trip.FamilyBorders] = trip.Unavailable
		if res.reasons == nil {
			res.reasons = map[trip.Family]string{}
		}
		res.reasons[trip.FamilyBorders] = "no time zone data for the stages' points"
	}
	alerts = append(alerts, borders...)
	for _, a := range alerts {
		ta := trip.AlertFrom(a)
		if a.StageIndex == alert.TripWide || a.StageIndex < 0 || a.StageIndex >= len(st.Stages) {
			res.trip = append(res.trip, ta)
			continue
		}
		h := st.Stages[a.StageIndex].ContentHash
		res.byHash[h] = append(res.byHash[h], ta)
	}
	if st.OverCapacityDays > 0 {
		res.trip = append(res.trip, trip.Alert{
			Code: string(alert.CodePacingOverCapacity), Severity: string(alert.SeverityCritical), Family: trip.FamilyOf(alert.CodePacingOverCapacity),
			Message: fmt.Sprintf("the dates leave too few days for your daily riding hours or the daily cap: %d more riding days are needed", st.OverCapacityDays),
			Metrics: map[string]float64{"extraDaysNeeded": float64(st.OverCapacityDays)},
		})
	}
	return res, nil
}

// forRefs builds the per-stage results of the requested refs: alerts and
// families for stages the trip still has, and an empty result for content it
// no longer has (trip.Decide records those as superseded).
func (r offlineResult) forRefs(st trip.State, refs []trip.StageRef) []trip.StageAnalysis {
	out := make([]trip.StageAnalysis, 0, len(refs))
	for _, ref := range refs {
		sa := trip.StageAnalysis{Stage: ref}
		if i := slices.IndexFunc(st.Stages, func(s trip.Stage) bool { return s.ContentHash == ref.ContentHash }); i >= 0 {
			sa.Stage.Index = i
			sa.Alerts = slices.Clone(r.byHash[ref.ContentHash])
			sa.Families = maps.Clone(r.families)
			sa.Resupply, sa.Weather = r.resupply[ref.ContentHash], r.weather[ref.ContentHash]
			for f, why := range r.reasons {
				if r.families[f] == trip.Unavailable {
					if sa.Reasons == nil {
						sa.Reasons = map[trip.Family]string{}
					}
					sa.Reasons[f] = why
				}
			}
		}
		out = append(out, sa)
	}
	return out
}

// presentStages are the requested stages the trip still has.
func presentStages(st trip.State, refs []trip.StageRef) []trip.Stage {
	var out []trip.Stage
	for _, s := range st.Stages {
		if slices.ContainsFunc(refs, func(r trip.StageRef) bool { return r.ContentHash == s.ContentHash }) {
			out = append(out, s)
		}
	}
	return out
}

func findAnalysis(st trip.State, id string) (trip.Analysis, bool) {
	for _, a := range st.Analyses {
		if a.ID == id {
			return a, true
		}
	}
	return trip.Analysis{}, false
}

// analysisFailed records AnalysisFailed.
func (w *Workers) analysisFailed(ctx context.Context, j job.Job, cause error, retryable bool) error {
	_, err := w.trips.Execute(ctx, tripstore.System(), j.TripID,
		trip.RecordAnalysisFailed{AnalysisID: j.Analysis().AnalysisID, Reason: cause.Error(), Retryable: retryable},
		options(j, "analysis-failed", j.Analysis().AnalysisID))
	return err
}

// borders finds the national borders every riding stage crosses
// (alert.BorderCrossings, offline). An error is the time-zone data failing.
func (w *Workers) borders(stages []alert.Stage) ([]alert.Alert, error) {
	zones, err := w.zoneFinder()
	if err != nil {
		return nil, err
	}
	var out []alert.Alert
	for _, s := range stages {
		as, err := alert.BorderCrossings(s, zones)
		if err != nil {
			return nil, err
		}
		out = append(out, as...)
	}
	return out, nil
}
