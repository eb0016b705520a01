package trip

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// withChoice is a ready trip whose first stage has an offered place chosen.
func withChoice(t *testing.T, p SettingsPatch) []Event {
	t.Helper()
	evs := readyTrip(t, p)
	s := Load(testTripID, "", evs)
	found := history2(t, s, RecordAccommodationsFound{Availability: "available", Stages: []FoundAccommodations{{
		Stage:      StageRef{Index: 0, ContentHash: s.Stages[0].ContentHash},
		Candidates: []Accommodation{{ProviderID: "osm:node/1", Name: "Hotel Nord", Type: AccommodationHotel, Location: s.Stages[0].End}},
	}}})
	evs = append(evs, found...)
	return append(evs, history2(t, applied(s, found...), ChooseAccommodation{Version: 1, StageIndex: 0, ProviderID: "osm:node/1"})...)
}

func TestUpdateSettings(t *testing.T) {
	t.Parallel()
	ready := readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2031-05-01"))})
	chosen := withChoice(t, SettingsPatch{})
	started := readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2030-06-01"))})
	run(t, []scenario{
		{
			name:  "a pacing change re-triggers stages and drops chosen accommodations",
			given: chosen, when: UpdateSettings{Version: 2, Patch: SettingsPatch{MaxDistancePerDayKm: ptr(120.0)}},
			thenTypes: []string{"TripSettingsUpdated"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.NotNil(t, before.Stages[0].Chosen)
				ev := evs[0].(*eventsv1.TripSettingsUpdated)
				require.Equal(t, after.Settings.PacingHash(), ev.GetPacingSettingsHash())
				require.Equal(t, ComputationRequested, after.StagesProgress.Status)
				require.Equal(t, StagesKey{testRouteHash, ev.GetPacingSettingsHash()}, after.StagesProgress.For)
				for _, st := range after.Stages {
					require.Nil(t, st.Chosen)
				}
				require.Equal(t, int64(3), after.Version)
				_, err := Decide(after, DeleteStage{Version: 3, Index: 0}, testNow)
				require.ErrorIs(t, err, &Error{Code: CodePreconditionFailed, Awaiting: ComputationStages})
			},
		},
		{
			name:  "a date change re-dates the stages without re-pacing",
			given: ready, when: UpdateSettings{Version: 1, Patch: SettingsPatch{StartDate: ptr(MustDate("2031-07-01"))}},
			thenTypes: []string{"TripSettingsUpdated", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, before, after State) {
				require.Equal(t, ComputationDone, after.StagesProgress.Status)
				require.Equal(t, "2031-07-02", after.Stages[1].Date.String())
				require.Equal(t, before.Stages[1].Geometry, after.Stages[1].Geometry)
				require.NotEqual(t, before.Stages[1].ContentHash, after.Stages[1].ContentHash)
			},
		},
		{
			name:  "a title change only changes the title",
			given: ready, when: UpdateSettings{Version: 1, Title: ptr("Nordkapp or bust")},
			thenTypes: []string{"TripSettingsUpdated"},
			then: func(t *testing.T, _ []Event, before, after State) {
				require.Equal(t, "Nordkapp or bust", after.Title)
				require.Equal(t, before.Stages, after.Stages)
				require.Equal(t, before.StagesProgress, after.StagesProgress)
				require.Equal(t, int64(2), after.Version)
			},
		},
		{name: "a change that changes nothing is refused", given: ready, when: UpdateSettings{Version: 1, Patch: SettingsPatch{FatigueFactor: ptr(0.9)}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "settings"}},
		{name: "an invalid setting is refused naming the field", given: ready, when: UpdateSettings{Version: 1, Patch: SettingsPatch{AverageSpeedKmH: ptr(60.0)}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "averageSpeed"}},
		{name: "an invalid title is refused", given: ready, when: UpdateSettings{Version: 1, Title: ptr(string(make([]rune, 300)))}, thenErr: &Error{Code: CodeInvalidArgument, Field: "title"}},
		{name: "a started trip refuses settings", given: started, when: UpdateSettings{Version: 1, Patch: SettingsPatch{AverageSpeedKmH: ptr(20.0)}}, thenErr: ErrLocked},
		{
			name:  "a started trip cannot unlock itself by moving its start date",
			given: started, when: UpdateSettings{Version: 1, Patch: SettingsPatch{StartDate: ptr(MustDate("2032-01-01"))}}, thenErr: ErrLocked,
		},
		{
			name:  "a trip starting tomorrow is not locked yet",
			given: started, now: time.Date(2030, 5, 31, 23, 59, 0, 0, time.UTC),
			when:      UpdateSettings{Version: 1, Patch: SettingsPatch{DepartureHour: ptr(7)}},
			thenTypes: []string{"TripSettingsUpdated", "AnalysisRequested"},
		},
		{name: "a stale version is a conflict naming the current one", given: ready, when: UpdateSettings{Version: 9, Title: ptr("x")}, thenErr: &Error{Code: CodeVersionConflict}},
		{name: "a missing trip is not found", when: UpdateSettings{Version: 1, Title: ptr("x")}, thenErr: ErrNotFound},
	})
	t.Run("a version conflict carries the current version", func(t *testing.T) {
		t.Parallel()
		_, err := Decide(Load(testTripID, "", ready), UpdateSettings{Version: 9, Title: ptr("x")}, testNow)
		var e *Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, int64(1), e.CurrentVersion)
	})
}

func TestGuardOrder(t *testing.T) {
	t.Parallel()
	started := readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2030-05-01"))})
	computing := history(t, uploaded(SettingsPatch{}))
	run(t, []scenario{
		{name: "the lock is checked before the version", given: started, when: DeleteStage{Version: 99, Index: 0}, thenErr: ErrLocked},
		{name: "the precondition is checked before the version", given: computing, when: DeleteStage{Version: 99, Index: 0}, thenErr: &Error{Code: CodePreconditionFailed, Awaiting: ComputationStages}},
		{name: "a stage edit waits for the route import", given: history(t, Create{SourceURL: "https://www.strava.com/routes/1"}), when: AddRestDay{Version: 1}, thenErr: &Error{Code: CodePreconditionFailed, Awaiting: ComputationRoute}},
		{name: "a started trip refuses an insert", given: started, when: InsertStage{Version: 1, Start: testRoute()[0], End: testRoute()[9]}, thenErr: ErrLocked},
		{name: "a started trip refuses an update", given: started, when: UpdateStage{Version: 1, End: ptr(testRoute()[9])}, thenErr: ErrLocked},
		{name: "a started trip refuses a move", given: started, when: MoveStage{Version: 1, From: 0, To: 1}, thenErr: ErrLocked},
		{name: "a started trip refuses a rest day", given: started, when: AddRestDay{Version: 1}, thenErr: ErrLocked},
		{name: "a trip computing stages refuses an insert", given: computing, when: InsertStage{Version: 1}, thenErr: ErrPreconditionFailed},
		{name: "a trip computing stages refuses an update", given: computing, when: UpdateStage{Version: 1}, thenErr: ErrPreconditionFailed},
		{name: "a trip computing stages refuses a move", given: computing, when: MoveStage{Version: 1}, thenErr: ErrPreconditionFailed},
		{name: "a trip computing stages refuses a rest day", given: computing, when: AddRestDay{Version: 1}, thenErr: ErrPreconditionFailed},
		{name: "a trip computing stages refuses a waypoint", given: computing, when: AddWaypoint{Version: 1}, thenErr: ErrPreconditionFailed},
		{name: "a trip computing stages refuses an accommodation choice", given: computing, when: ChooseAccommodation{Version: 1}, thenErr: ErrPreconditionFailed},
		{name: "a stale version on a move is a conflict", given: readyTrip(t, SettingsPatch{}), when: MoveStage{Version: 2, From: 0, To: 1}, thenErr: ErrVersionConflict},
		{name: "a stale version on an update is a conflict", given: readyTrip(t, SettingsPatch{}), when: UpdateStage{Version: 2, End: ptr(testRoute()[9])}, thenErr: ErrVersionConflict},
		{name: "a stale version on a delete is a conflict", given: readyTrip(t, SettingsPatch{}), when: DeleteStage{Version: 2}, thenErr: ErrVersionConflict},
		{name: "a stale version on a rest day is a conflict", given: readyTrip(t, SettingsPatch{}), when: AddRestDay{Version: 2}, thenErr: ErrVersionConflict},
		{name: "an unknown command is refused", given: computing, when: nil, thenErr: &Error{Code: CodeInvalidArgument, Field: "command"}},
	})
}
