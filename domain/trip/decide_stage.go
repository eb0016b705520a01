package trip

import (
	"math"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// The five structural edits of DOMAIN §4, plus waypoints and accommodation
// choices. Each edit event carries the stages it produced, already
// quantized, dated and hashed, so Evolve only splices them in.

// structural is the guard of a stage edit: lock, stages, version.
func structural(version int64) guard { return guard{lock: true, stages: true, version: version} }

// checkPoint refuses a coordinate out of range or NaN.
func checkPoint(field string, p route.Point) error {
	if !(p.Lat >= -90 && p.Lat <= 90) || !(p.Lon >= -180 && p.Lon <= 180) {
		return invalid(field, "must be a latitude in [-90, 90] and a longitude in [-180, 180]")
	}
	return nil
}

// checkIndex refuses an index outside the stages.
func (s State) checkIndex(field string, i int) error {
	if i < 0 || i >= len(s.Stages) {
		return invalid(field, "must be between 0 and %d", len(s.Stages)-1)
	}
	return nil
}

// settled returns st as the fold will hold it at position i of the
// stages in s (dated and hashed).
func settled(s State, stages []Stage, i int) Stage {
	tmp := s.clone()
	tmp.Stages = stages
	normalize(&tmp)
	return tmp.Stages[i]
}

// endDatePB is the end date events carry: set when the trip has both dates.
func endDatePB(s State, n int) string {
	if s.Settings.StartDate.IsZero() || s.Settings.EndDate.IsZero() || n < MinStages {
		return s.Settings.EndDate.String()
	}
	return s.Settings.StartDate.AddDays(n - 1).String()
}

func decideInsertStage(s State, c InsertStage, today Date) ([]Event, error) {
	if err := s.check(today, structural(c.Version)); err != nil {
		return nil, err
	}
	if c.Position < 0 || c.Position > len(s.Stages) {
		return nil, invalid("position", "must be between 0 and %d", len(s.Stages))
	}
	if err := checkPoint("startPoint", c.Start); err != nil {
		return nil, err
	}
	if err := checkPoint("endPoint", c.End); err != nil {
		return nil, err
	}
	st := straightStage(c.Start, c.End, OriginInserted)
	stages := insertAt(s.Stages, c.Position, st)
	ev := &eventsv1.StageInserted{
		Position: uint32(c.Position),
		Stage:    stagePB(settled(s, stages, c.Position)),
		EndDate:  endDatePB(s, len(stages)),
	}
	return withAnalysis(s, []Event{ev}, AnalysisStagesEdited), nil
}

func decideUpdateStage(s State, c UpdateStage, today Date) ([]Event, error) {
	if err := s.check(today, structural(c.Version)); err != nil {
		return nil, err
	}
	if err := s.checkIndex("stageIndex", c.Index); err != nil {
		return nil, err
	}
	cur := s.Stages[c.Index]
	if cur.RestDay {
		return nil, invalid("stageIndex", "is a rest day; delete it or edit a riding stage")
	}
	if c.DistanceM == nil {
		if c.Start == nil && c.End == nil {
			return nil, invalid("distance", "action=update needs distance or startPoint/endPoint")
		}
		start, end := cur.Start, cur.End
		if c.Start != nil {
			if err := checkPoint("startPoint", *c.Start); err != nil {
				return nil, err
			}
			start = *c.Start
		}
		if c.End != nil {
			if err := checkPoint("endPoint", *c.End); err != nil {
				return nil, err
			}
			end = *c.End
		}
		stages := replaceAt(s.Stages, c.Index, straightStage(start, end, OriginManualPoints))
		ev := &eventsv1.StageUpdated{Index: uint32(c.Index), Stage: stagePB(settled(s, stages, c.Index)), EndDate: endDatePB(s, len(stages))}
		return withAnalysis(s, []Event{ev}, AnalysisStagesEdited), nil
	}
	if c.Start != nil || c.End != nil {
		return nil, invalid("startPoint", "give either distance or points, not both")
	}
	d := *c.DistanceM
	if !(d > 0) || math.IsInf(d, 0) {
		return nil, invalid("distance", "must be greater than 0")
	}
	if len(c.Route.Points) < 2 {
		return nil, invalid("route", "the route's points are needed to cut by distance")
	}
	rt := newAlong(c.Route)
	from := rt.startM(cur)
	cut := from + d
	last := c.Index == len(s.Stages)-1
	limit := rt.length()
	if !last {
		next := s.Stages[c.Index+1]
		if next.RestDay {
			return nil, invalid("stageIndex", "is followed by a rest day, which cannot take a remainder")
		}
		limit = rt.endM(next)
	}
	if cut >= limit-1 {
		return nil, invalid("distance", "must end before the end of the next stage (at most %.0f m from this stage's start)", math.Max(0, limit-1-from))
	}
	updated := rt.span(from, cut, OriginManualSplit)
	rest := rt.span(cut, limit, OriginManualSplit)
	var stages []Stage
	if last {
		stages = insertAt(replaceAt(s.Stages, c.Index, updated), c.Index+1, rest)
	} else {
		stages = replaceAt(replaceAt(s.Stages, c.Index, updated), c.Index+1, rest)
	}
	dm := roundM(d)
	ev := &eventsv1.StageUpdated{
		Index:             uint32(c.Index),
		Stage:             stagePB(settled(s, stages, c.Index)),
		NextStage:         stagePB(settled(s, stages, c.Index+1)),
		NextStageAppended: last,
		EndDate:           endDatePB(s, len(stages)),
		DistanceM:         &dm,
	}
	return withAnalysis(s, []Event{ev}, AnalysisStagesEdited), nil
}

func decideMoveStage(s State, c MoveStage, today Date) ([]Event, error) {
	if err := s.check(today, structural(c.Version)); err != nil {
		return nil, err
	}
	if err := s.checkIndex("stageIndex", c.From); err != nil {
		return nil, err
	}
	if err := s.checkIndex("toIndex", c.To); err != nil {
		return nil, err
	}
	if c.From == c.To {
		return nil, invalid("toIndex", "must differ from fromIndex")
	}
	moved := moveTo(s.Stages, c.From, c.To)
	tmp := s.clone()
	tmp.Stages = moved
	normalize(&tmp)
	ev := &eventsv1.StageMoved{FromIndex: uint32(c.From), ToIndex: uint32(c.To)}
	for _, st := range tmp.Stages {
		if _, same := s.stageByHash(st.ContentHash); !same {
			ev.ChangedStages = append(ev.ChangedStages, stagePB(st))
		}
	}
	return withAnalysis(s, []Event{ev}, AnalysisStagesEdited), nil
}

func decideDeleteStage(s State, c DeleteStage, today Date) ([]Event, error) {
	if err := s.check(today, structural(c.Version)); err != nil {
		return nil, err
	}
	if err := s.checkIndex("stageIndex", c.Index); err != nil {
		return nil, err
	}
	if len(s.Stages)-1 < MinStages {
		e := *ErrMinStages
		e.Field, e.Message = "stageIndex", "a trip keeps at least 2 stages"
		return nil, &e
	}
	i, n := c.Index, len(s.Stages)
	if s.Stages[i].RestDay {
		ev := &eventsv1.StageDeleted{Index: uint32(i), RestDay: true, EndDate: endDatePB(s, n-1)}
		return withAnalysis(s, []Event{ev}, AnalysisStagesEdited), nil
	}
	var merged Stage
	var into int // index after removal
	switch {
	case i+1 < n && !s.Stages[i+1].RestDay:
		merged, into = mergeStages(s.Stages[i], s.Stages[i+1]), i
	case i+1 == n && !s.Stages[i-1].RestDay:
		merged, into = mergeStages(s.Stages[i-1], s.Stages[i]), i-1
	default:
		return nil, invalid("stageIndex", "is next to a rest day; delete the rest day first")
	}
	stages := append(append([]Stage(nil), s.Stages[:i]...), s.Stages[i+1:]...)
	stages[into] = merged
	u := uint32(into)
	ev := &eventsv1.StageDeleted{
		Index:           uint32(i),
		MergedIntoIndex: &u,
		MergedStage:     stagePB(settled(s, stages, into)),
		EndDate:         endDatePB(s, n-1),
	}
	return withAnalysis(s, []Event{ev}, AnalysisStagesEdited), nil
}

func decideAddRestDay(s State, c AddRestDay, today Date) ([]Event, error) {
	if err := s.check(today, structural(c.Version)); err != nil {
		return nil, err
	}
	if err := s.checkIndex("afterStageIndex", c.AfterIndex); err != nil {
		return nil, err
	}
	i := c.AfterIndex
	if s.Stages[i].RestDay || (i+1 < len(s.Stages) && s.Stages[i+1].RestDay) {
		e := *ErrAdjacentRestDay
		e.Field, e.Message = "afterStageIndex", "a rest day cannot be next to another rest day"
		return nil, &e
	}
	stages := insertAt(s.Stages, i+1, restDayAt(s.Stages[i].End))
	ev := &eventsv1.RestDayAdded{AfterIndex: uint32(i), Stage: stagePB(settled(s, stages, i+1)), EndDate: endDatePB(s, len(stages))}
	return withAnalysis(s, []Event{ev}, AnalysisStagesEdited), nil
}

func decideAddWaypoint(s State, c AddWaypoint, today Date) ([]Event, error) {
	if err := s.check(today, structural(c.Version)); err != nil {
		return nil, err
	}
	if err := s.checkIndex("stageIndex", c.StageIndex); err != nil {
		return nil, err
	}
	if _, err := uuid.Parse(c.ID); err != nil {
		return nil, invalid("waypointId", "must be a UUID")
	}
	if c.Name == "" {
		return nil, invalid("name", "must not be empty")
	}
	if err := validateTitle(c.Name); err != nil {
		return nil, invalid("name", "must be at most %d characters", MaxTitleChars)
	}
	if len(c.Category) > 64 {
		return nil, invalid("category", "must be at most 64 bytes")
	}
	if err := checkPoint("location", c.Location); err != nil {
		return nil, err
	}
	st := s.Stages[c.StageIndex]
	loc := quantize(c.Location)
	return []Event{&eventsv1.WaypointAdded{
		WaypointId:       c.ID,
		StageIndex:       uint32(c.StageIndex),
		StageContentHash: st.ContentHash,
		Name:             c.Name,
		Location:         pointPB(loc),
		Category:         c.Category,
		DetourM:          roundM(detourEstimate(loc, st.line())),
		DetourEstimated:  true,
	}}, nil
}

func decideChooseAccommodation(s State, c ChooseAccommodation, today Date) ([]Event, error) {
	if err := s.check(today, structural(c.Version)); err != nil {
		return nil, err
	}
	if err := s.checkIndex("stageIndex", c.StageIndex); err != nil {
		return nil, err
	}
	i := c.StageIndex
	if s.Stages[i].RestDay {
		return nil, invalid("stageIndex", "is a rest day; choose the night of the stage before it")
	}
	var acc Accommodation
	manual := c.Manual != nil
	switch {
	case manual && c.ProviderID != "":
		return nil, invalid("accommodationId", "give either an offered accommodation or a manual one, not both")
	case manual:
		acc = *c.Manual
		if acc.Name == "" {
			return nil, invalid("name", "must not be empty")
		}
		if err := validateTitle(acc.Name); err != nil {
			return nil, invalid("name", "must be at most %d characters", MaxTitleChars)
		}
		if err := checkPoint("location", acc.Location); err != nil {
			return nil, err
		}
		acc.ProviderID = ""
	default:
		found := false
		for _, o := range s.Stages[i].Offered {
			if o.ProviderID == c.ProviderID && c.ProviderID != "" {
				acc, found = o, true
				break
			}
		}
		if !found {
			e := *ErrNotOffered
			e.Message = "this accommodation is not (or no longer) offered for the stage; read the stage again"
			return nil, &e
		}
	}
	stages := append([]Stage(nil), s.Stages...)
	stages[i] = moveEnd(stages[i], acc.Location)
	hasNext := i+1 < len(stages)
	if hasNext {
		stages[i+1] = moveStart(stages[i+1], acc.Location)
	}
	ev := &eventsv1.AccommodationChosen{
		StageIndex:    uint32(i),
		Accommodation: accommodationPB(acc),
		Manual:        manual,
		Stage:         stagePB(settled(s, stages, i)),
	}
	if hasNext {
		ev.NextStage = stagePB(settled(s, stages, i+1))
	}
	return withAnalysis(s, []Event{ev}, AnalysisStagesEdited), nil
}

// insertAt returns a copy of stages with st at position i.
func insertAt(stages []Stage, i int, st Stage) []Stage {
	out := make([]Stage, 0, len(stages)+1)
	out = append(out, stages[:i]...)
	out = append(out, st)
	return append(out, stages[i:]...)
}

// replaceAt returns a copy of stages with position i replaced.
func replaceAt(stages []Stage, i int, st Stage) []Stage {
	out := append([]Stage(nil), stages...)
	out[i] = st
	return out
}

// moveTo returns a copy of stages with the stage at from moved to to.
func moveTo(stages []Stage, from, to int) []Stage {
	st := stages[from]
	rest := append(append([]Stage(nil), stages[:from]...), stages[from+1:]...)
	return insertAt(rest, to, st)
}
