package trip

import (
	"slices"

	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// Evolve folds one event into a copy of s. It never fails: events are
// facts, already validated when decided. An event type this version does not
// know still counts toward the stream version and changes nothing else, so
// an older reader can fold a newer stream.
func Evolve(s State, e Event) State {
	s = s.clone()
	s.StreamVersion++
	switch ev := e.(type) {
	case *eventsv1.TripCreated:
		s.Exists, s.Version = true, 1
		s.Settings = settingsFrom(ev.GetSettings())
		s.Title, s.TitleFromUser = ev.GetTitle(), ev.GetTitle() != ""
		if u := ev.GetUrl(); u != nil {
			s.Source = Source{Kind: sourceKindFrom(u.GetKind()), ID: u.GetId(), URL: u.GetUrl()}
			s.RouteImport = ComputationState{Status: ComputationRequested}
		}
		if u := ev.GetUpload(); u != nil {
			s.Source = Source{Upload: &UploadSource{RouteHash: u.GetRouteHash(), Filename: u.GetFilename(), SizeBytes: int64(u.GetSizeBytes())}}
		}
	case *eventsv1.TripDuplicated:
		s.Exists, s.Version = true, 1
		s.DuplicatedFrom = ev.GetSourceTripId()
		s.Title, s.TitleFromUser = ev.GetTitle(), true
		s.Settings = settingsFrom(ev.GetSettings())
		if u := ev.GetUrl(); u != nil {
			s.Source = Source{Kind: sourceKindFrom(u.GetKind()), ID: u.GetId(), URL: u.GetUrl()}
		}
		if r := ev.GetRoute(); r != nil {
			ri := routeInfoFrom(r)
			s.Route = &ri
			s.RouteImport = ComputationState{Status: ComputationDone}
			s.StagesProgress = StagesProgress{ComputationState: ComputationState{Status: ComputationRequested}, For: s.StagesKey()}
		}
		if sc := ev.GetStages(); sc != nil {
			s = applyStagesComputed(s, sc)
		}
	case *eventsv1.RouteImported:
		r := routeInfoFrom(ev)
		s.Route = &r
		s.RouteImport = ComputationState{Status: ComputationDone}
		if !s.TitleFromUser {
			s.Title = r.Title
		}
		s.StagesProgress = StagesProgress{
			ComputationState: ComputationState{Status: ComputationRequested},
			For:              StagesKey{RouteHash: r.Hash, PacingHash: s.Settings.PacingHash()},
		}
	case *eventsv1.RouteImportFailed:
		s.RouteImport = ComputationState{Status: ComputationFailed, Reason: ev.GetReason(), Retryable: ev.GetRetryable()}
	case *eventsv1.StagesComputed:
		s = applyStagesComputed(s, ev)
	case *eventsv1.StagesSuperseded:
		s.StagesProgress.Superseded = append(s.StagesProgress.Superseded, computedForFrom(ev.GetComputedFor()))
	case *eventsv1.StagesFailed:
		if computedForFrom(ev.GetComputedFor()) == s.StagesProgress.For {
			s.StagesProgress.ComputationState = ComputationState{Status: ComputationFailed, Reason: ev.GetReason(), Retryable: ev.GetRetryable()}
		}
	case *eventsv1.TripSettingsUpdated:
		oldPacing := s.Settings.PacingHash()
		s.Settings = settingsFrom(ev.GetSettings())
		if t := ev.Title; t != nil {
			s.Title, s.TitleFromUser = *t, true
		}
		s.Version++
		if ev.GetPacingSettingsHash() != oldPacing && s.Route != nil {
			// Re-pacing replaces every stage: manual splits go with the
			// next result, chosen nights go now.
			s.StagesProgress.ComputationState = ComputationState{Status: ComputationRequested}
			s.StagesProgress.For = StagesKey{RouteHash: s.Route.Hash, PacingHash: ev.GetPacingSettingsHash()}
			for i := range s.Stages {
				s.Stages[i].Chosen = nil
			}
		}
		normalize(&s)
	case *eventsv1.StageInserted:
		s.Stages = insertAt(s.Stages, int(ev.GetPosition()), stageFrom(ev.GetStage()))
		s = structuralEdit(s)
	case *eventsv1.StageUpdated:
		s = applyStageUpdated(s, ev)
	case *eventsv1.StageMoved:
		s.Stages = moveTo(s.Stages, int(ev.GetFromIndex()), int(ev.GetToIndex()))
		s = structuralEdit(s)
	case *eventsv1.StageDeleted:
		s = applyStageDeleted(s, ev)
	case *eventsv1.RestDayAdded:
		s.Stages = insertAt(s.Stages, int(ev.GetAfterIndex())+1, stageFrom(ev.GetStage()))
		s = structuralEdit(s)
	case *eventsv1.StageLayoutRestored:
		s = applyLayoutRestored(s, ev)
	case *eventsv1.WaypointAdded:
		if i := s.stageIndexFor(ev.GetStageContentHash(), int(ev.GetStageIndex())); i >= 0 {
			s.Stages[i].Waypoints = append(s.Stages[i].Waypoints, Waypoint{
				ID: ev.GetWaypointId(), Name: ev.GetName(), Category: ev.GetCategory(),
				Location: pointFrom(ev.GetLocation()), DetourM: ev.GetDetourM(), DetourEstimated: ev.GetDetourEstimated(),
				MeasuredOn: s.Stages[i].lineKey(),
			})
			settleDetours(&s.Stages[i])
		}
	case *eventsv1.WaypointDetourRouted:
		s = applyWaypointDetourRouted(s, ev)
	case *eventsv1.AccommodationsRequested:
		s.AccommodationSearch = AccommodationSearch{Status: ComputationRequested}
	case *eventsv1.AccommodationsFound:
		s.AccommodationSearch = AccommodationSearch{Status: ComputationDone, Availability: availabilityFrom(ev.GetAvailability())}
		for _, f := range ev.GetStages() {
			if i := s.stageIndexFor(f.GetStageContentHash(), -1); i >= 0 {
				s.Stages[i].Offered = nil
				for _, a := range f.GetCandidates() {
					s.Stages[i].Offered = append(s.Stages[i].Offered, accommodationFrom(a))
				}
			}
		}
	case *eventsv1.AccommodationChosen:
		s = applyAccommodationChosen(s, ev)
	case *eventsv1.AnalysisRequested:
		a := Analysis{ID: ev.GetAnalysisId(), Reason: analysisReasonFrom(ev.GetReason()), ComputationState: ComputationState{Status: ComputationRequested}}
		for _, r := range ev.GetStages() {
			a.Stages = append(a.Stages, StageRef{Index: int(r.GetIndex()), ContentHash: r.GetContentHash()})
			a.Pending = append(a.Pending, r.GetContentHash())
		}
		s.Analyses = append(s.Analyses, a)
	case *eventsv1.AnalysisPartCompleted:
		s = applyAnalysisResults(s, ev.GetAnalysisId(), ev.GetStages())
	case *eventsv1.AnalysisCompleted:
		s = applyAnalysisResults(s, ev.GetAnalysisId(), ev.GetStages())
		s.TripAlerts = nil
		for _, a := range ev.GetTripAlerts() {
			s.TripAlerts = append(s.TripAlerts, alertFrom(a))
		}
		s.updateAnalysis(ev.GetAnalysisId(), func(a *Analysis) {
			a.ComputationState, a.Pending = ComputationState{Status: ComputationDone}, nil
		})
	case *eventsv1.AnalysisFailed:
		s.updateAnalysis(ev.GetAnalysisId(), func(a *Analysis) {
			a.ComputationState = ComputationState{Status: ComputationFailed, Reason: ev.GetReason(), Retryable: ev.GetRetryable()}
			a.Pending = nil
		})
	case *eventsv1.AnalysisSuperseded:
		s.updateAnalysis(ev.GetAnalysisId(), func(a *Analysis) {
			a.Superseded = append(a.Superseded, ev.GetStageContentHashes()...)
			a.Pending = slices.DeleteFunc(a.Pending, func(h string) bool { return slices.Contains(ev.GetStageContentHashes(), h) })
		})
	case *eventsv1.LabelsResolved:
		for _, l := range ev.GetLabels() {
			if i := s.stageIndexFor(l.GetStageContentHash(), -1); i >= 0 {
				st := &s.Stages[i]
				st.StartLabel, st.EndLabel = l.GetStartLabel(), l.GetEndLabel()
				// A geocoder that knew no place there (recorded empty
				// before the label rule named such ends) reads as the
				// coordinates the rule gives them now: a resolved label
				// is never empty.
				if st.StartLabel == "" {
					st.StartLabel = route.CoordinatesText(st.Start)
				}
				if st.EndLabel == "" {
					st.EndLabel = route.CoordinatesText(st.End)
				}
				st.Labelled, st.LabelsUnavailable = true, ""
			}
		}
	case *eventsv1.LabelsUnavailable:
		for _, h := range ev.GetStageContentHashes() {
			if i := s.stageIndexFor(h, -1); i >= 0 && !s.Stages[i].Labelled {
				s.Stages[i].LabelsUnavailable = ev.GetReason()
			}
		}
	case *eventsv1.TripShared:
		s.Share.Code = ev.GetShareCode()
	case *eventsv1.TripUnshared:
		s.Share.Revoked = append(s.Share.Revoked, ev.GetShareCode())
		s.Share.Code = ""
	case *eventsv1.TripDeleted:
		s.Deleted = true
		s.Version++
	}
	return s
}

// Fold replays a stream from the empty state. The caller sets ID and Owner
// (see Load) because the stream, not the events, carries them.
func Fold(events []Event) State {
	var s State
	for _, e := range events {
		s = Evolve(s, e)
	}
	return s
}

// Load folds a stream for a known trip id and owner.
func Load(id, owner string, events []Event) State {
	s := State{ID: id, Owner: owner}
	for _, e := range events {
		s = Evolve(s, e)
	}
	return s
}

// structuralEdit finishes a stage edit: one version step, end date and
// derived fields recomputed.
func structuralEdit(s State) State {
	s.Version++
	followEndDate(&s)
	normalize(&s)
	return s
}

// stageIndexFor finds the stage holding a content hash, or -1. When the hash
// is gone, fallback (if in range) is used only for events that belong to a
// stage whatever its content (a waypoint).
func (s State) stageIndexFor(hash string, fallback int) int {
	for i, st := range s.Stages {
		if st.ContentHash == hash {
			return i
		}
	}
	if fallback >= 0 && fallback < len(s.Stages) {
		return fallback
	}
	return -1
}

// updateAnalysis changes one analysis in place (s is already a clone).
func (s *State) updateAnalysis(id string, f func(*Analysis)) {
	for i := range s.Analyses {
		if s.Analyses[i].ID == id {
			f(&s.Analyses[i])
		}
	}
}

func applyStagesComputed(s State, ev *eventsv1.StagesComputed) State {
	var wps []Waypoint
	for _, st := range s.Stages {
		wps = append(wps, st.Waypoints...)
	}
	s.Stages = nil
	for _, pb := range ev.GetStages() {
		s.Stages = append(s.Stages, stageFrom(pb))
	}
	all := make([]int, len(s.Stages))
	for i := range all {
		all[i] = i
	}
	reattach(s.Stages, wps, all)
	s.OverCapacityDays = int(ev.GetPacingOverCapacity().GetExtraDaysNeeded())
	s.StagesProgress.ComputationState = ComputationState{Status: ComputationDone}
	s.StagesProgress.For = computedForFrom(ev.GetComputedFor())
	normalize(&s)
	return s
}

func applyStageUpdated(s State, ev *eventsv1.StageUpdated) State {
	i := int(ev.GetIndex())
	old := s.Stages[i]
	st := stageFrom(ev.GetStage())
	if st.End == old.End {
		st.Chosen = old.Chosen
	}
	st.StartLabel, st.EndLabel, st.Labelled = old.StartLabel, old.EndLabel, old.Labelled
	wps := old.Waypoints
	s.Stages[i] = st
	if next := ev.GetNextStage(); next != nil {
		ns := stageFrom(next)
		if ev.GetNextStageAppended() {
			s.Stages = insertAt(s.Stages, i+1, ns)
		} else {
			oldNext := s.Stages[i+1]
			if ns.End == oldNext.End {
				ns.Chosen = oldNext.Chosen
			}
			wps = append(slices.Clone(wps), oldNext.Waypoints...)
			s.Stages[i+1] = ns
		}
		reattach(s.Stages, wps, []int{i, i + 1})
	} else {
		s.Stages[i].Waypoints = wps
	}
	return structuralEdit(s)
}

func applyStageDeleted(s State, ev *eventsv1.StageDeleted) State {
	i := int(ev.GetIndex())
	if ev.GetRestDay() || ev.MergedIntoIndex == nil {
		s.Stages = slices.Delete(s.Stages, i, i+1)
		return structuralEdit(s)
	}
	into := int(*ev.MergedIntoIndex)
	var a, b Stage
	if into < i {
		a, b = s.Stages[i-1], s.Stages[i] // merged into the previous
	} else {
		a, b = s.Stages[i], s.Stages[i+1] // merged into the next
	}
	m := stageFrom(ev.GetMergedStage())
	m.Waypoints = append(slices.Clone(a.Waypoints), b.Waypoints...)
	if b.End == m.End {
		m.Chosen = b.Chosen
	}
	m.StartLabel, m.EndLabel, m.Labelled = a.StartLabel, b.EndLabel, a.Labelled && b.Labelled
	s.Stages = slices.Delete(s.Stages, i, i+1)
	s.Stages[into] = m
	return structuralEdit(s)
}

func applyAccommodationChosen(s State, ev *eventsv1.AccommodationChosen) State {
	i := int(ev.GetStageIndex())
	keep := func(old Stage, pb *eventsv1.Stage) Stage {
		if pb == nil {
			return old
		}
		st := stageFrom(pb)
		st.Waypoints, st.Offered, st.Chosen = old.Waypoints, old.Offered, old.Chosen
		st.StartLabel, st.EndLabel, st.Labelled = old.StartLabel, old.EndLabel, old.Labelled
		return st
	}
	s.Stages[i] = keep(s.Stages[i], ev.GetStage())
	s.Stages[i].Chosen = &ChosenAccommodation{Accommodation: accommodationFrom(ev.GetAccommodation()), Manual: ev.GetManual()}
	if i+1 < len(s.Stages) {
		s.Stages[i+1] = keep(s.Stages[i+1], ev.GetNextStage())
	}
	s.Version++
	normalize(&s)
	return s
}

func applyAnalysisResults(s State, id string, results []*eventsv1.StageAnalysis) State {
	for _, r := range results {
		h := r.GetStage().GetContentHash()
		if i := s.stageIndexFor(h, -1); i >= 0 {
			st := &s.Stages[i]
			st.Alerts, st.Families, st.FamilyReasons, st.Analyzed = nil, map[Family]Availability{}, nil, true
			st.Resupply, st.Weather = resupplyFrom(r.GetResupply()), weatherFrom(r.GetWeather())
			for _, a := range r.GetAlerts() {
				st.Alerts = append(st.Alerts, alertFrom(a))
			}
			for _, f := range r.GetFamilies() {
				name := familyFrom(f.GetFamily())
				st.Families[name] = availabilityFrom(f.GetAvailability())
				if f.GetReason() != "" {
					if st.FamilyReasons == nil {
						st.FamilyReasons = map[Family]string{}
					}
					st.FamilyReasons[name] = f.GetReason()
				}
			}
		}
		s.updateAnalysis(id, func(a *Analysis) {
			a.Pending = slices.DeleteFunc(a.Pending, func(p string) bool { return p == h })
		})
	}
	return s
}

// reattach gives each waypoint to the candidate stage it is closest to, so
// waypoints survive re-cutting and re-pacing.
func reattach(stages []Stage, wps []Waypoint, candidates []int) {
	for _, c := range candidates {
		stages[c].Waypoints = nil
	}
	for _, w := range wps {
		best, bestD := -1, 0.0
		for _, c := range candidates {
			if d := detourEstimate(w.Location, stages[c].line()); best < 0 || d < bestD {
				best, bestD = c, d
			}
		}
		if best >= 0 {
			stages[best].Waypoints = append(stages[best].Waypoints, w)
		}
	}
}
