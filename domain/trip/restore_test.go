package trip

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// hashes are the stages' content hashes in order: a layout at a glance.
func hashes(s State) []string {
	out := make([]string, len(s.Stages))
	for i, st := range s.Stages {
		out[i] = st.ContentHash
	}
	return out
}

func TestRestoreStageLayout(t *testing.T) {
	t.Parallel()
	pts := testRoute()
	// Version 1: three paced days, labelled. Version 2: day 1 cut at 7 km.
	base := readyTrip(t, datedTrip)
	s1 := Load(testTripID, "", base)
	labels := RecordLabels{Geocoder: "gazetteer", Labels: []StageLabel{
		{Stage: StageRef{Index: 0, ContentHash: s1.Stages[0].ContentHash}, Start: "Oslo", End: "Nittedal"},
		{Stage: StageRef{Index: 1, ContentHash: s1.Stages[1].ContentHash}, Start: "Nittedal", End: "Hakadal"},
	}}
	v1 := append(append([]Event(nil), base...), history2(t, s1, labels)...)
	s1 = Load(testTripID, "", v1)
	cut := append(append([]Event(nil), v1...), history2(t, s1, UpdateStage{Version: 1, Index: 0, DistanceM: ptr(7000.0), Route: route.Line{Points: pts}})...)
	s2 := Load(testTripID, "", cut)
	require.Equal(t, int64(2), s2.Version)
	// Version 3: the cut undone.
	undone := append(append([]Event(nil), cut...), history2(t, s2, RestoreStageLayout{Version: 2, LayoutVersion: 1, History: cut})...)

	run(t, []scenario{
		{
			name:  "undo puts back the days of the version before the edit as a new version",
			given: cut, when: RestoreStageLayout{Version: 2, LayoutVersion: 1, History: cut},
			thenTypes: []string{"StageLayoutRestored", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.Equal(t, hashes(s1), hashes(after), "the same stage contents, in order")
				require.Equal(t, int64(3), after.Version, "a restore is an edit: one version step")
				require.InDelta(t, s1.Stages[0].DistanceM, after.Stages[0].DistanceM, 0.01)
				require.Equal(t, OriginPaced, after.Stages[0].Origin)
				require.Equal(t, "Nittedal", after.Stages[0].EndLabel, "the place names of that version come back")
				require.Equal(t, "Hakadal", after.Stages[1].EndLabel)
				require.Equal(t, before.Stages[2], after.Stages[2], "the untouched third day keeps everything")
				require.Equal(t, int64(1), evs[0].(*eventsv1.StageLayoutRestored).GetLayoutVersion())
				require.Len(t, evs[1].(*eventsv1.AnalysisRequested).GetStages(), 2, "only the two days that change are analysed again")
				require.Equal(t, "2031-05-03", after.Settings.EndDate.String())
			},
		},
		{
			name:  "redo is a restore of the version the undo went back from",
			given: undone, when: RestoreStageLayout{Version: 3, LayoutVersion: 2, History: undone},
			thenTypes: []string{"StageLayoutRestored", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, hashes(s2), hashes(after))
				require.Equal(t, int64(4), after.Version)
				require.Equal(t, OriginManualSplit, after.Stages[0].Origin)
			},
		},
		{
			name:  "restoring the layout the trip already has records nothing",
			given: undone, when: RestoreStageLayout{Version: 3, LayoutVersion: 1, History: undone},
		},
		{
			name:  "a layout with a different number of days moves the end date with it",
			given: withRestDay(t), when: RestoreStageLayout{Version: 2, LayoutVersion: 1, History: withRestDay(t)},
			thenTypes: []string{"StageLayoutRestored", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.Len(t, before.Stages, 4)
				require.Len(t, evs[1].(*eventsv1.AnalysisRequested).GetStages(), 2, "the days re-dated by the removal are analysed again")
				require.Len(t, after.Stages, 3, "the rest day is gone again")
				require.Equal(t, "2031-05-03", after.Settings.EndDate.String())
				require.Equal(t, "2031-05-03", evs[0].(*eventsv1.StageLayoutRestored).GetEndDate())
			},
		},
		{name: "the current version is not an earlier one", given: cut, when: RestoreStageLayout{Version: 2, LayoutVersion: 2, History: cut}, thenErr: &Error{Code: CodeInvalidArgument, Field: "layoutVersion"}},
		{name: "version 0 is refused", given: cut, when: RestoreStageLayout{Version: 2, LayoutVersion: 0, History: cut}, thenErr: &Error{Code: CodeInvalidArgument, Field: "layoutVersion"}},
		{name: "a history that does not reach past the version is refused", given: cut, when: RestoreStageLayout{Version: 2, LayoutVersion: 1, History: v1}, thenErr: &Error{Code: CodeInvalidArgument, Field: "layoutVersion"}},
		{name: "a stale version is a conflict", given: cut, when: RestoreStageLayout{Version: 1, LayoutVersion: 1, History: cut}, thenErr: ErrVersionConflict},
		{name: "a started trip refuses a restore", given: cut, now: time.Date(2031, 5, 2, 8, 0, 0, 0, time.UTC), when: RestoreStageLayout{Version: 2, LayoutVersion: 1, History: cut}, thenErr: ErrLocked},
	})

	t.Run("waypoints stay on the trip, each on the nearest restored day", func(t *testing.T) {
		t.Parallel()
		wp := s2.Stages[0].End // on the cut: day 1 at version 2, inside day 1 at version 1
		wp.Lon += 0.001
		given := append(append([]Event(nil), cut...), history2(t, s2, AddWaypoint{Version: 2, StageIndex: 0,
			ID: "9a0c7d3e-1b2f-4c5d-8e6f-0a1b2c3d4e5f", Name: "Spring", Category: "water", Location: wp})...)
		s := Load(testTripID, "", given)
		evs, err := Decide(s, RestoreStageLayout{Version: 2, LayoutVersion: 1, History: given}, testNow)
		require.NoError(t, err)
		after := applied(s, evs...)
		n := 0
		for _, st := range after.Stages {
			n += len(st.Waypoints)
		}
		require.Equal(t, 1, n, "the waypoint is kept")
		require.Len(t, after.Stages[0].Waypoints, 1, "on the day whose line passes it")
	})

	t.Run("an untouched day keeps its resupply points and weather through an undo", func(t *testing.T) {
		t.Parallel()
		s := Load(testTripID, "", v1)
		third := s.Stages[2]
		analysed := append(append([]Event(nil), v1...), history2(t, s, RecordAnalysis{AnalysisID: s.Analyses[0].ID, Final: true,
			Stages: []StageAnalysis{{Stage: StageRef{Index: 2, ContentHash: third.ContentHash},
				Families: map[Family]Availability{FamilyResupply: Available, FamilyWeather: Available},
				Resupply: &Resupply{SegmentM: 10000, Points: []ResupplyPoint{{Kind: ResupplyWater, Name: "Fontene", Location: third.End, AtM: 1200}}},
				Weather:  &Weather{Location: third.End, TempMinC: 8, TempMaxC: 17, Comfort: 80}}}})...)
		s = Load(testTripID, "", analysed)
		cutAgain := append(analysed, history2(t, s, UpdateStage{Version: 1, Index: 0, DistanceM: ptr(7000.0), Route: route.Line{Points: pts}})...)
		s = Load(testTripID, "", cutAgain)
		require.NotNil(t, s.Stages[2].Resupply, "the cut leaves day 3 alone")
		evs, err := Decide(s, RestoreStageLayout{Version: 2, LayoutVersion: 1, History: cutAgain}, testNow)
		require.NoError(t, err)
		after := applied(s, evs...)
		require.True(t, after.Stages[2].Analyzed)
		require.NotNil(t, after.Stages[2].Resupply, "an analysis result: kept with the alerts")
		require.Equal(t, "Fontene", after.Stages[2].Resupply.Points[0].Name)
		require.NotNil(t, after.Stages[2].Weather)
	})

	t.Run("a night chosen at the restored version comes back", func(t *testing.T) {
		t.Parallel()
		base := readyTrip(t, SettingsPatch{})
		s := Load(testTripID, "", base)
		place := route.Point{Lat: s.Stages[0].End.Lat + 0.001, Lon: s.Stages[0].End.Lon + 0.002}
		given := append(append([]Event(nil), base...), history2(t, s,
			RecordAccommodationsFound{RadiusM: 5000, Availability: "available", Stages: []FoundAccommodations{{
				Stage:      StageRef{Index: 0, ContentHash: s.Stages[0].ContentHash},
				Candidates: []Accommodation{{ProviderID: "osm:node/7", Name: "Camping Elv", Type: AccommodationCampSite, Location: place}},
			}}},
			ChooseAccommodation{Version: 1, StageIndex: 0, ProviderID: "osm:node/7"})...)
		s = Load(testTripID, "", given)
		given = append(given, history2(t, s, MoveStage{Version: 2, From: 0, To: 1})...) // version 3
		s = Load(testTripID, "", given)
		require.Nil(t, s.Stages[0].Chosen)
		evs, err := Decide(s, RestoreStageLayout{Version: 3, LayoutVersion: 2, History: given}, testNow)
		require.NoError(t, err)
		after := applied(s, evs...)
		require.NotNil(t, after.Stages[0].Chosen)
		require.Equal(t, "Camping Elv", after.Stages[0].Chosen.Name)
		require.Nil(t, after.Stages[1].Chosen)
		require.Equal(t, after, Load(testTripID, "", roundTrip(t, append(given, evs...))), "the event survives the store")
	})
}

// withRestDay is the dated ready trip with a rest day after day 1
// (version 2).
func withRestDay(t *testing.T) []Event {
	t.Helper()
	base := readyTrip(t, datedTrip)
	return append(base, history2(t, Load(testTripID, "", base), AddRestDay{Version: 1, AfterIndex: 0})...)
}
