package trip

import (
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// Undo and redo of stage edits. Every layout a trip ever had is
// in its event history, so an undo is not a deletion of events (they are
// never rewritten) but a new edit that puts an earlier layout back: the
// stages as they were at LayoutVersion, re-dated and re-hashed for the trip
// as it is now, with the place names and chosen nights they had then. A
// redo is the same command naming the version the undo went back from.

// LayoutAt folds history up to the last event of trip version v and
// returns that state: the stages the trip had at v. ok is false when the
// history ends before the version moved past v (v is not an earlier
// version of this history).
func LayoutAt(history []Event, v int64) (at State, ok bool) {
	var s State
	for _, e := range history {
		next := Evolve(s, e)
		if s.Version == v && next.Version > v {
			return s, true
		}
		s = next
	}
	return State{}, false
}

func decideRestoreStageLayout(s State, c RestoreStageLayout, today Date) ([]Event, error) {
	if err := s.check(today, structural(c.Version)); err != nil {
		return nil, err
	}
	if c.LayoutVersion < 1 || c.LayoutVersion >= s.Version {
		return nil, invalid("layoutVersion", "must be an earlier version of the trip, between 1 and %d", s.Version-1)
	}
	past, ok := LayoutAt(c.History, c.LayoutVersion)
	if !ok {
		return nil, invalid("layoutVersion", "version %d is not in the trip's history", c.LayoutVersion)
	}
	if len(past.Stages) < MinStages {
		e := *ErrMinStages
		e.Field, e.Message = "layoutVersion", "the trip had fewer than 2 stages at that version; a trip keeps at least 2"
		return nil, &e
	}
	restored := s.clone()
	restored.Stages = make([]Stage, len(past.Stages))
	for i, st := range past.Stages {
		restored.Stages[i] = Stage{Origin: st.Origin, RestDay: st.RestDay, Start: st.Start, End: st.End,
			DistanceM: st.DistanceM, AscentM: st.AscentM, DescentM: st.DescentM, Geometry: st.Geometry,
			GeometryBlobHash: st.GeometryBlobHash, OnRoute: st.OnRoute, RouteStartM: st.RouteStartM, RouteEndM: st.RouteEndM}
	}
	normalize(&restored)
	if sameLayout(s.Stages, restored.Stages, past.Stages) {
		return nil, nil // already the current layout: nothing to record
	}
	ev := &eventsv1.StageLayoutRestored{LayoutVersion: c.LayoutVersion, EndDate: endDatePB(s, len(restored.Stages))}
	for i, st := range restored.Stages {
		ev.Stages = append(ev.Stages, stagePB(st))
		then := past.Stages[i]
		if then.Labelled {
			ev.Labels = append(ev.Labels, &eventsv1.StageLabel{StageIndex: uint32(i), StageContentHash: st.ContentHash,
				StartLabel: then.StartLabel, EndLabel: then.EndLabel})
		}
		if then.Chosen != nil {
			ev.Nights = append(ev.Nights, &eventsv1.RestoredNight{StageIndex: uint32(i),
				Accommodation: accommodationPB(then.Chosen.Accommodation), Manual: then.Chosen.Manual})
		}
	}
	return withAnalysis(s, []Event{ev}, AnalysisStagesEdited), nil
}

// sameLayout reports whether restoring would change nothing: the same
// stage contents in the same order, with the same nights chosen.
func sameLayout(current, restored, past []Stage) bool {
	if len(current) != len(restored) {
		return false
	}
	for i := range current {
		if current[i].ContentHash != restored[i].ContentHash {
			return false
		}
		a, b := current[i].Chosen, past[i].Chosen
		if (a == nil) != (b == nil) || (a != nil && (a.ProviderID != b.ProviderID || a.Name != b.Name || a.Location != b.Location)) {
			return false
		}
	}
	return true
}

// applyLayoutRestored replaces every stage with the restored ones. A stage
// whose content a current stage has keeps that stage's results (analysis —
// alerts, families, resupply points, weather —, candidates, labels); labels and nights from the restored version are
// then set; every waypoint goes to the nearest restored stage.
func applyLayoutRestored(s State, ev *eventsv1.StageLayoutRestored) State {
	byHash := make(map[string]Stage, len(s.Stages))
	var wps []Waypoint
	for _, st := range s.Stages {
		byHash[st.ContentHash] = st
		wps = append(wps, st.Waypoints...)
	}
	s.Stages = make([]Stage, 0, len(ev.GetStages()))
	all := make([]int, 0, len(ev.GetStages()))
	for i, pb := range ev.GetStages() {
		st := stageFrom(pb)
		if cur, ok := byHash[st.ContentHash]; ok {
			st.Alerts, st.Families, st.FamilyReasons, st.Analyzed = cur.Alerts, cur.Families, cur.FamilyReasons, cur.Analyzed
			st.Resupply, st.Weather = cur.Resupply, cur.Weather
			st.Offered = cur.Offered
			st.StartLabel, st.EndLabel, st.Labelled, st.LabelsUnavailable = cur.StartLabel, cur.EndLabel, cur.Labelled, cur.LabelsUnavailable
		}
		s.Stages = append(s.Stages, st)
		all = append(all, i)
	}
	for _, l := range ev.GetLabels() {
		if i := int(l.GetStageIndex()); i < len(s.Stages) {
			st := &s.Stages[i]
			st.StartLabel, st.EndLabel, st.Labelled, st.LabelsUnavailable = l.GetStartLabel(), l.GetEndLabel(), true, ""
		}
	}
	for _, n := range ev.GetNights() {
		if i := int(n.GetStageIndex()); i < len(s.Stages) {
			s.Stages[i].Chosen = &ChosenAccommodation{Accommodation: accommodationFrom(n.GetAccommodation()), Manual: n.GetManual()}
		}
	}
	reattach(s.Stages, wps, all)
	return structuralEdit(s)
}
