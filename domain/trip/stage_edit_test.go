package trip

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

var datedTrip = SettingsPatch{StartDate: ptr(MustDate("2031-05-01")), EndDate: ptr(MustDate("2031-05-03"))}

func TestInsertStage(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, datedTrip)
	a, b := route.Point{Lat: 61, Lon: 10}, route.Point{Lat: 61.1, Lon: 10}
	run(t, []scenario{
		{
			name:  "a stage is inserted as a straight line and the end date shifts",
			given: given, when: InsertStage{Version: 1, Position: 1, Start: a, End: b},
			thenTypes: []string{"StageInserted", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.Len(t, after.Stages, 4)
				ins := after.Stages[1]
				require.Equal(t, OriginInserted, ins.Origin)
				require.InDelta(t, route.Vincenty(a, b), ins.DistanceM, 0.5)
				require.Zero(t, ins.AscentM)
				require.Equal(t, []int{0, 1, 2, 3}, []int{after.Stages[0].Index, after.Stages[1].Index, after.Stages[2].Index, after.Stages[3].Index})
				require.Equal(t, "2031-05-04", after.Settings.EndDate.String())
				require.Equal(t, "2031-05-04", evs[0].(*eventsv1.StageInserted).GetEndDate())
				require.Equal(t, int64(2), after.Version, "an edit moves the trip version")
				// Only the new stage and the re-dated ones after it are analysed.
				require.Len(t, evs[1].(*eventsv1.AnalysisRequested).GetStages(), 3)
			},
		},
		{
			name:  "a stage can be appended at the end",
			given: given, when: InsertStage{Version: 1, Position: 3, Start: a, End: b},
			thenTypes: []string{"StageInserted", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, OriginInserted, after.Stages[3].Origin)
			},
		},
		{name: "a position past the end is refused", given: given, when: InsertStage{Version: 1, Position: 4, Start: a, End: b}, thenErr: &Error{Code: CodeInvalidArgument, Field: "position"}},
		{name: "a latitude out of range is refused", given: given, when: InsertStage{Version: 1, Position: 0, Start: route.Point{Lat: 91}, End: b}, thenErr: &Error{Code: CodeInvalidArgument, Field: "startPoint"}},
		{name: "a stale version is a conflict", given: given, when: InsertStage{Version: 7, Position: 0, Start: a, End: b}, thenErr: ErrVersionConflict},
	})
}

func TestUpdateStage(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, SettingsPatch{})
	pts := testRoute()
	run(t, []scenario{
		{
			name:  "with a distance the stage is cut there and the next takes the remainder",
			given: given, when: UpdateStage{Version: 1, Index: 0, DistanceM: ptr(7000.0), Route: route.Line{Points: pts}},
			thenTypes: []string{"StageUpdated", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.Len(t, after.Stages, 3)
				require.InDelta(t, 7000, after.Stages[0].DistanceM, 30)
				require.InDelta(t, before.Stages[0].DistanceM+before.Stages[1].DistanceM-7000, after.Stages[1].DistanceM, 30)
				require.Equal(t, after.Stages[0].End, after.Stages[1].Start, "the cut point is shared")
				require.Equal(t, before.Stages[2], after.Stages[2], "the third stage is untouched")
				require.Equal(t, OriginManualSplit, after.Stages[0].Origin)
				require.Len(t, evs[1].(*eventsv1.AnalysisRequested).GetStages(), 2, "only the two affected stages are analysed")
				require.Equal(t, 7000.0, evs[0].(*eventsv1.StageUpdated).GetDistanceM())
			},
		},
		{
			name:  "with a distance on the last stage the remainder becomes a new stage",
			given: given, when: UpdateStage{Version: 1, Index: 2, DistanceM: ptr(4000.0), Route: route.Line{Points: pts}},
			thenTypes: []string{"StageUpdated", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.True(t, evs[0].(*eventsv1.StageUpdated).GetNextStageAppended())
				require.Len(t, after.Stages, 4)
				require.InDelta(t, 4000, after.Stages[2].DistanceM, 30)
				require.Equal(t, before.Stages[2].End, after.Stages[3].End)
			},
		},
		{
			name:  "with points only the stage becomes a straight line",
			given: given, when: UpdateStage{Version: 1, Index: 1, End: ptr(route.Point{Lat: 60.19, Lon: 10.01})},
			thenTypes: []string{"StageUpdated", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, before, after State) {
				st := after.Stages[1]
				require.Equal(t, OriginManualPoints, st.Origin)
				require.Len(t, st.Geometry, 2)
				require.Equal(t, before.Stages[1].Start.Lat, st.Start.Lat)
				require.InDelta(t, route.Vincenty(st.Start, st.End), st.DistanceM, 1e-6)
			},
		},
		{name: "a cut past the end of the next stage is refused", given: given, when: UpdateStage{Version: 1, Index: 0, DistanceM: ptr(25000.0), Route: route.Line{Points: pts}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "distance"}},
		{name: "a distance of zero is refused", given: given, when: UpdateStage{Version: 1, Index: 0, DistanceM: ptr(0.0), Route: route.Line{Points: pts}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "distance"}},
		{name: "an update with neither distance nor points is refused", given: given, when: UpdateStage{Version: 1, Index: 0}, thenErr: &Error{Code: CodeInvalidArgument, Field: "distance"}},
		{name: "an update with both distance and points is refused", given: given, when: UpdateStage{Version: 1, Index: 0, DistanceM: ptr(5000.0), End: ptr(pts[3]), Route: route.Line{Points: pts}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "startPoint"}},
		{name: "a cut without the route's points is refused", given: given, when: UpdateStage{Version: 1, Index: 0, DistanceM: ptr(5000.0)}, thenErr: &Error{Code: CodeInvalidArgument, Field: "route"}},
		{name: "an index out of range is refused", given: given, when: UpdateStage{Version: 1, Index: 3, End: ptr(pts[3])}, thenErr: &Error{Code: CodeInvalidArgument, Field: "stageIndex"}},
		{name: "a rest day cannot be updated", given: readyTrip(t, SettingsPatch{}, AddRestDay{Version: 1, AfterIndex: 0}), when: UpdateStage{Version: 2, Index: 1, End: ptr(pts[3])}, thenErr: &Error{Code: CodeInvalidArgument, Field: "stageIndex"}},
		{name: "a stage followed by a rest day cannot be cut by distance", given: readyTrip(t, SettingsPatch{}, AddRestDay{Version: 1, AfterIndex: 0}), when: UpdateStage{Version: 2, Index: 0, DistanceM: ptr(5000.0), Route: route.Line{Points: pts}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "stageIndex"}},
	})
}

func TestMoveStage(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, datedTrip)
	run(t, []scenario{
		{
			name:  "a stage moves and the re-dated stages are carried as changed",
			given: given, when: MoveStage{Version: 1, From: 2, To: 0},
			thenTypes: []string{"StageMoved", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.Equal(t, before.Stages[2].Geometry, after.Stages[0].Geometry)
				require.Equal(t, "2031-05-01", after.Stages[0].Date.String())
				require.Len(t, evs[0].(*eventsv1.StageMoved).GetChangedStages(), 3, "all three dates changed")
				require.Equal(t, int64(2), after.Version)
			},
		},
		{
			name:  "without dates a move changes no content",
			given: readyTrip(t, SettingsPatch{}), when: MoveStage{Version: 1, From: 0, To: 1},
			thenTypes: []string{"StageMoved"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.Empty(t, evs[0].(*eventsv1.StageMoved).GetChangedStages())
				require.Equal(t, before.Stages[0].ContentHash, after.Stages[1].ContentHash)
			},
		},
		{name: "moving to the same index is refused", given: given, when: MoveStage{Version: 1, From: 1, To: 1}, thenErr: &Error{Code: CodeInvalidArgument, Field: "toIndex"}},
		{name: "moving to an index out of range is refused", given: given, when: MoveStage{Version: 1, From: 1, To: 3}, thenErr: &Error{Code: CodeInvalidArgument, Field: "toIndex"}},
		{name: "moving from an index out of range is refused", given: given, when: MoveStage{Version: 1, From: -1, To: 0}, thenErr: &Error{Code: CodeInvalidArgument, Field: "stageIndex"}},
	})
}

func TestDeleteStage(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, datedTrip)
	run(t, []scenario{
		{
			name:  "a riding stage merges into the next one",
			given: given, when: DeleteStage{Version: 1, Index: 0},
			thenTypes: []string{"StageDeleted", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.Len(t, after.Stages, 2)
				m := after.Stages[0]
				require.Equal(t, OriginMerged, m.Origin)
				require.Equal(t, before.Stages[0].Start, m.Start)
				require.Equal(t, before.Stages[1].End, m.End)
				require.Equal(t, len(before.Stages[0].Geometry)+len(before.Stages[1].Geometry)-1, len(m.Geometry), "geometries concatenated, shared point once")
				require.InDelta(t, before.Stages[0].DistanceM+before.Stages[1].DistanceM, m.DistanceM, 1)
				require.Equal(t, uint32(0), evs[0].(*eventsv1.StageDeleted).GetMergedIntoIndex())
				require.Equal(t, "2031-05-02", after.Settings.EndDate.String(), "the end date is pulled in")
			},
		},
		{
			name:  "the last stage merges into the previous one",
			given: given, when: DeleteStage{Version: 1, Index: 2},
			thenTypes: []string{"StageDeleted", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, before, after State) {
				require.Len(t, after.Stages, 2)
				require.Equal(t, before.Stages[2].End, after.Stages[1].End)
				require.Equal(t, before.Stages[0], after.Stages[0])
			},
		},
		{
			name:  "a rest day is removed",
			given: readyTrip(t, SettingsPatch{}, AddRestDay{Version: 1, AfterIndex: 1}), when: DeleteStage{Version: 2, Index: 2},
			thenTypes: []string{"StageDeleted"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.True(t, evs[0].(*eventsv1.StageDeleted).GetRestDay())
				require.Len(t, after.Stages, 3)
				for _, st := range after.Stages {
					require.False(t, st.RestDay)
				}
			},
		},
		{name: "deleting below two stages is refused", given: readyTrip(t, SettingsPatch{}, DeleteStage{Version: 1, Index: 0}), when: DeleteStage{Version: 2, Index: 0}, thenErr: ErrMinStages},
		{name: "a stage between a rest day and the end cannot merge", given: readyTrip(t, SettingsPatch{}, AddRestDay{Version: 1, AfterIndex: 1}), when: DeleteStage{Version: 2, Index: 3}, thenErr: &Error{Code: CodeInvalidArgument, Field: "stageIndex"}},
		{name: "an index out of range is refused", given: given, when: DeleteStage{Version: 1, Index: 5}, thenErr: &Error{Code: CodeInvalidArgument, Field: "stageIndex"}},
	})
}

func TestAddRestDay(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, datedTrip)
	withRest := readyTrip(t, SettingsPatch{}, AddRestDay{Version: 1, AfterIndex: 0})
	run(t, []scenario{
		{
			name:  "a 0 km rest day is added after the stage at its end point",
			given: given, when: AddRestDay{Version: 1, AfterIndex: 0},
			thenTypes: []string{"RestDayAdded", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, before, after State) {
				r := after.Stages[1]
				require.True(t, r.RestDay)
				require.Zero(t, r.DistanceM)
				require.Equal(t, before.Stages[0].End, r.Start)
				require.Equal(t, r.Start, r.End)
				require.Equal(t, "2031-05-02", r.Date.String())
				require.Equal(t, "2031-05-04", after.Settings.EndDate.String())
			},
		},
		{name: "a rest day right after a rest day is refused", given: withRest, when: AddRestDay{Version: 2, AfterIndex: 1}, thenErr: ErrAdjacentRestDay},
		{name: "a rest day right before a rest day is refused", given: withRest, when: AddRestDay{Version: 2, AfterIndex: 0}, thenErr: ErrAdjacentRestDay},
		{name: "an index out of range is refused", given: given, when: AddRestDay{Version: 1, AfterIndex: 3}, thenErr: &Error{Code: CodeInvalidArgument, Field: "afterStageIndex"}},
	})
}
