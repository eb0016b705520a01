package trip

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/google/uuid"

	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// Worker results carry no trip version: they are keyed by content and
// judged against what the trip has now (ARCHITECTURE §3).

var importCodePB = map[ImportErrorCode]eventsv1.RouteImportErrorCode{
	ImportRouteFetchFailed:  eventsv1.RouteImportErrorCode_ROUTE_IMPORT_ERROR_CODE_ROUTE_FETCH_FAILED,
	ImportEmptyRoute:        eventsv1.RouteImportErrorCode_ROUTE_IMPORT_ERROR_CODE_EMPTY_ROUTE,
	ImportInvalidGPX:        eventsv1.RouteImportErrorCode_ROUTE_IMPORT_ERROR_CODE_INVALID_GPX,
	ImportRouteTooLarge:     eventsv1.RouteImportErrorCode_ROUTE_IMPORT_ERROR_CODE_ROUTE_TOO_LARGE,
	ImportSourceUnavailable: eventsv1.RouteImportErrorCode_ROUTE_IMPORT_ERROR_CODE_SOURCE_UNAVAILABLE,
	ImportForbiddenAddress:  eventsv1.RouteImportErrorCode_ROUTE_IMPORT_ERROR_CODE_FORBIDDEN_ADDRESS,
}

// MaxReasonBytes bounds a failure reason written into an event.
const MaxReasonBytes = 1024

// MaxFamilyReasonBytes bounds the reason an unavailable rule family carries
// (the event contract's limit): one line an agent reads in a stage view.
const MaxFamilyReasonBytes = 200

func decideRouteImported(s State, c RecordRouteImported) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	if s.RouteImport.Status != ComputationRequested {
		return nil, nil // an import is never superseded; a redelivery records nothing
	}
	if err := validateRoute(c.Route); err != nil {
		return nil, err
	}
	return []Event{routeImportedPB(c.Route)}, nil
}

func decideRouteImportFailed(s State, c RecordRouteImportFailed) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	if s.RouteImport.Status != ComputationRequested {
		return nil, nil
	}
	code, ok := importCodePB[c.Code]
	if !ok {
		return nil, invalid("code", "unknown import error code")
	}
	ev := &eventsv1.RouteImportFailed{Code: code, Reason: capBytes(c.Reason, MaxReasonBytes), Retryable: c.Retryable}
	if c.HTTPStatus > 0 {
		st := uint32(c.HTTPStatus)
		ev.HttpStatus = &st
	}
	return []Event{ev}, nil
}

func decideStagesComputed(s State, c RecordStagesComputed) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	cur := s.StagesProgress
	if c.For == cur.For && cur.Status != ComputationRequested {
		return nil, nil // a redelivered result for what was already recorded
	}
	if c.For != cur.For || cur.Status != ComputationRequested {
		return []Event{&eventsv1.StagesSuperseded{ComputedFor: computedForPB(c.For), Current: computedForPB(cur.For)}}, nil
	}
	if c.OverCapacityDays < 0 {
		return nil, invalid("overCapacityDays", "must not be negative")
	}
	// Build the stages as the fold will hold them: quantized, dated, hashed.
	stages := make([]Stage, len(c.Stages))
	for i, st := range c.Stages {
		if !st.RestDay && len(st.Geometry) < 2 && st.GeometryBlobHash == "" {
			return nil, invalid("stages", "every riding stage needs at least 2 geometry points")
		}
		if st.Origin == "" {
			st.Origin = OriginPaced
		}
		st.Geometry = quantizeLine(st.Geometry)
		st.Start, st.End = quantize(st.Start), quantize(st.End)
		st.Waypoints, st.Chosen, st.Offered, st.Alerts, st.Families, st.FamilyReasons = nil, nil, nil, nil, nil, nil
		stages[i] = st
	}
	tmp := s.clone()
	tmp.Stages = stages
	normalize(&tmp)
	ev := &eventsv1.StagesComputed{ComputedFor: computedForPB(c.For)}
	for _, st := range tmp.Stages {
		ev.Stages = append(ev.Stages, stagePB(st))
	}
	if !tmp.Settings.StartDate.IsZero() && len(tmp.Stages) > 0 {
		ev.EndDate = tmp.EndDate().String()
	}
	if c.OverCapacityDays > 0 {
		ev.PacingOverCapacity = &eventsv1.PacingOverCapacity{ExtraDaysNeeded: uint32(c.OverCapacityDays)}
	}
	return withAnalysis(s, []Event{ev}, AnalysisStagesComputed), nil
}

func decideStagesFailed(s State, c RecordStagesFailed) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	cur := s.StagesProgress
	if c.For == cur.For && cur.Status != ComputationRequested {
		return nil, nil
	}
	if c.For != cur.For {
		return []Event{&eventsv1.StagesSuperseded{ComputedFor: computedForPB(c.For), Current: computedForPB(cur.For)}}, nil
	}
	return []Event{&eventsv1.StagesFailed{ComputedFor: computedForPB(c.For), Reason: capBytes(c.Reason, MaxReasonBytes), Retryable: c.Retryable}}, nil
}

// MaxCandidates is the number of accommodations kept per stage (DOMAIN §6).
const MaxCandidates = 5

func decideAccommodationsFound(s State, c RecordAccommodationsFound) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	avail, ok := availabilityPB[c.Availability]
	if !ok {
		return nil, invalid("availability", "must be available, not_configured or unavailable")
	}
	ev := &eventsv1.AccommodationsFound{RadiusM: uint32(c.RadiusM), Availability: avail}
	for _, f := range c.Stages {
		if len(f.Candidates) > MaxCandidates {
			return nil, invalid("candidates", "at most %d per stage", MaxCandidates)
		}
		if _, ok := s.stageByHash(f.Stage.ContentHash); !ok {
			continue // searched for content the trip no longer has
		}
		sa := &eventsv1.StageAccommodations{StageIndex: uint32(f.Stage.Index), StageContentHash: f.Stage.ContentHash}
		for _, a := range f.Candidates {
			sa.Candidates = append(sa.Candidates, accommodationPB(a))
		}
		ev.Stages = append(ev.Stages, sa)
	}
	if len(ev.Stages) == 0 {
		return nil, nil
	}
	return []Event{ev}, nil
}

func decideRescanAccommodations(s State, c RescanAccommodations, today Date) ([]Event, error) {
	if err := s.check(today, guard{stages: true, version: c.Version}); err != nil {
		return nil, err
	}
	if c.RadiusM < 1000 || c.RadiusM > 15000 {
		return nil, invalid("radiusKm", "must be between 1 and 15 km")
	}
	ev := &eventsv1.AccommodationsRequested{RadiusM: uint32(c.RadiusM)}
	for _, i := range c.StageIndexes {
		if i < 0 || i >= len(s.Stages) {
			return nil, invalid("stageIndexes", "holds an index outside 0..%d", len(s.Stages)-1)
		}
		ev.StageIndexes = append(ev.StageIndexes, uint32(i))
	}
	return []Event{ev}, nil
}

func decideAnalyze(s State, c Analyze, today Date) ([]Event, error) {
	if err := s.check(today, guard{stages: true, version: c.Version}); err != nil {
		return nil, err
	}
	if s.AnalysisRunning() {
		return nil, &Error{Code: CodeAlreadyRunning, Awaiting: ComputationAnalysis, Message: "an analysis is already running; read the trip again shortly"}
	}
	if _, err := uuid.Parse(c.AnalysisID); err != nil {
		return nil, invalid("analysisId", "must be a UUID")
	}
	ev := &eventsv1.AnalysisRequested{AnalysisId: c.AnalysisID, Reason: analysisReasonPB[AnalysisUserRequested],
		EstimatedWaypointIds: estimatedWaypoints(s)}
	for _, st := range s.Stages {
		ev.Stages = append(ev.Stages, &eventsv1.StageRef{Index: uint32(st.Index), ContentHash: st.ContentHash})
	}
	return []Event{ev}, nil
}

// analysisByID finds a requested analysis.
func (s State) analysisByID(id string) (Analysis, bool) {
	for _, a := range s.Analyses {
		if a.ID == id {
			return a, true
		}
	}
	return Analysis{}, false
}

// stageByHash finds the stage holding a content now.
func (s State) stageByHash(h string) (Stage, bool) {
	for _, st := range s.Stages {
		if st.ContentHash == h {
			return st, true
		}
	}
	return Stage{}, false
}

func decideRecordAnalysis(s State, c RecordAnalysis) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	a, ok := s.analysisByID(c.AnalysisID)
	if !ok {
		return nil, &Error{Code: CodeNotFound, Reason: "unknown_analysis", Message: "no analysis with this id was requested"}
	}
	if a.Status != ComputationRequested {
		return nil, nil // already terminal: a redelivery
	}
	var landing []*eventsv1.StageAnalysis
	var gone []string
	for _, r := range c.Stages {
		if _, ok := s.stageByHash(r.Stage.ContentHash); !ok {
			gone = append(gone, r.Stage.ContentHash)
			continue
		}
		pb, err := stageAnalysisPB(r)
		if err != nil {
			return nil, err
		}
		landing = append(landing, pb)
	}
	var events []Event
	if len(gone) > 0 {
		events = append(events, &eventsv1.AnalysisSuperseded{AnalysisId: a.ID, StageContentHashes: gone})
	}
	switch {
	case c.Final:
		done := &eventsv1.AnalysisCompleted{AnalysisId: a.ID, Stages: landing}
		for _, al := range c.TripAlerts {
			pb, err := alertPB(al)
			if err != nil {
				return nil, err
			}
			done.TripAlerts = append(done.TripAlerts, pb)
		}
		events = append(events, done)
	case len(landing) > 0:
		events = append(events, &eventsv1.AnalysisPartCompleted{AnalysisId: a.ID, Stages: landing})
	}
	return events, nil
}

func decideAnalysisFailed(s State, c RecordAnalysisFailed) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	a, ok := s.analysisByID(c.AnalysisID)
	if !ok {
		return nil, &Error{Code: CodeNotFound, Reason: "unknown_analysis", Message: "no analysis with this id was requested"}
	}
	if a.Status != ComputationRequested {
		return nil, nil
	}
	return []Event{&eventsv1.AnalysisFailed{AnalysisId: a.ID, Reason: capBytes(c.Reason, MaxReasonBytes), Retryable: c.Retryable}}, nil
}

func decideLabels(s State, c RecordLabels) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	ev := &eventsv1.LabelsResolved{Geocoder: capBytes(c.Geocoder, 64)}
	for _, l := range c.Labels {
		if _, ok := s.stageByHash(l.Stage.ContentHash); !ok {
			continue
		}
		ev.Labels = append(ev.Labels, &eventsv1.StageLabel{
			StageIndex: uint32(l.Stage.Index), StageContentHash: l.Stage.ContentHash,
			StartLabel: capRunes(l.Start, MaxTitleChars), EndLabel: capRunes(l.End, MaxTitleChars),
		})
	}
	if len(ev.Labels) == 0 {
		return nil, nil
	}
	return []Event{ev}, nil
}

func decideLabelsUnavailable(s State, c RecordLabelsUnavailable) ([]Event, error) {
	if !s.Exists || s.Deleted {
		return nil, errNotFound()
	}
	if strings.TrimSpace(c.Reason) == "" {
		return nil, invalid("reason", "must say why the labels are unavailable")
	}
	ev := &eventsv1.LabelsUnavailable{Reason: capBytes(c.Reason, 500), Geocoder: capBytes(c.Geocoder, 64)}
	for _, r := range c.Stages {
		st, ok := s.stageByHash(r.ContentHash)
		if !ok || st.Labelled || st.LabelsUnavailable == ev.Reason || slices.Contains(ev.StageContentHashes, r.ContentHash) {
			continue // gone, labelled meanwhile, or already recorded so
		}
		ev.StageContentHashes = append(ev.StageContentHashes, r.ContentHash)
	}
	if len(ev.StageContentHashes) == 0 {
		return nil, nil
	}
	return []Event{ev}, nil
}

var severityPB = map[string]eventsv1.Severity{
	"critical": eventsv1.Severity_SEVERITY_CRITICAL,
	"warning":  eventsv1.Severity_SEVERITY_WARNING,
	"nudge":    eventsv1.Severity_SEVERITY_NUDGE,
}

func alertPB(a Alert) (*eventsv1.Alert, error) {
	sev, ok := severityPB[a.Severity]
	if !ok {
		return nil, invalid("severity", "must be critical, warning or nudge")
	}
	pb := &eventsv1.Alert{Code: a.Code, Severity: sev, Message: capBytes(a.Message, MaxReasonBytes), Metrics: a.Metrics}
	if a.Family != "" {
		f, ok := familyPB[a.Family]
		if !ok {
			return nil, invalid("family", "unknown rule family")
		}
		pb.Family = f
	}
	if a.Location != nil {
		pb.Location = pointPB(*a.Location)
	}
	if act := a.Action; act != nil {
		switch act.Kind {
		case "split_stage":
			pb.Action = &eventsv1.AlertAction{Kind: &eventsv1.AlertAction_SplitStage{SplitStage: &eventsv1.SplitStageAction{AtDistanceM: act.AtDistanceM}}}
		case "set_departure_hour":
			pb.Action = &eventsv1.AlertAction{Kind: &eventsv1.AlertAction_SetDepartureHour{SetDepartureHour: &eventsv1.SetDepartureHourAction{DepartureHour: uint32(act.DepartureHour)}}}
		case "add_rest_day":
			pb.Action = &eventsv1.AlertAction{Kind: &eventsv1.AlertAction_AddRestDay{AddRestDay: &eventsv1.AddRestDayAction{AfterIndex: uint32(act.AfterIndex)}}}
		default:
			return nil, invalid("action", "unknown alert action")
		}
	}
	return pb, nil
}

func stageAnalysisPB(r StageAnalysis) (*eventsv1.StageAnalysis, error) {
	pb := &eventsv1.StageAnalysis{Stage: &eventsv1.StageRef{Index: uint32(r.Stage.Index), ContentHash: r.Stage.ContentHash}}
	for _, a := range r.Alerts {
		apb, err := alertPB(a)
		if err != nil {
			return nil, err
		}
		pb.Alerts = append(pb.Alerts, apb)
	}
	for n, why := range r.Reasons {
		if r.Families[n] != Unavailable || why == "" {
			return nil, invalid("reasons", "only an unavailable family has a reason, and it is not empty")
		}
	}
	for _, n := range slices.Sorted(maps.Keys(r.Families)) { // deterministic events
		f, ok := familyPB[n]
		av, ok2 := availabilityPB[r.Families[n]]
		if !ok || !ok2 {
			return nil, invalid("families", "unknown rule family or availability")
		}
		pb.Families = append(pb.Families, &eventsv1.FamilyAvailability{Family: f, Availability: av,
			Reason: capBytes(r.Reasons[n], MaxFamilyReasonBytes)})
	}
	return pb, nil
}

// capBytes truncates s to at most n bytes on a rune boundary.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// capRunes truncates s to at most n characters.
func capRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// roundM rounds metres to the centimetre, enough for cut distances.
func roundM(v float64) float64 { return math.Round(v*100) / 100 }
