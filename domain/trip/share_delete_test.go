package trip

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

var codePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16}$`)

// twelve is 12 bytes of randomness: one share code's worth.
var twelve = []byte{0xfb, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09}

func TestShare(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, SettingsPatch{})
	s := Load(testTripID, "", given)
	shared := append(append([]Event(nil), given...), history2(t, s, Share{Version: 1, Rand: fixedRand(twelve...)})...)
	unshared := append(append([]Event(nil), shared...), history2(t, Load(testTripID, "", shared), Unshare{Version: 1})...)
	started := readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2030-05-01"))})
	run(t, []scenario{
		{
			name:  "sharing makes a 16-character code from 96 random bits without moving the version",
			given: given, when: Share{Version: 1, Rand: fixedRand(twelve...)},
			thenTypes: []string{"TripShared"},
			then: func(t *testing.T, evs []Event, _, after State) {
				code := evs[0].(*eventsv1.TripShared).GetShareCode()
				require.Regexp(t, codePattern, code)
				require.Equal(t, "-_8AAQIDBAUGBwgJ", code, "12 bytes spelled in base64url")
				require.True(t, after.Share.Active())
				require.Equal(t, int64(1), after.Version)
			},
		},
		{
			name:  "unsharing revokes the code without moving the version",
			given: shared, when: Unshare{Version: 1}, thenTypes: []string{"TripUnshared"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.False(t, after.Share.Active())
				require.Equal(t, []string{"-_8AAQIDBAUGBwgJ"}, after.Share.Revoked)
			},
		},
		{
			name:  "a share after an unshare gets a new code even when the randomness repeats",
			given: unshared, when: Share{Version: 1, Rand: fixedRand(append(append([]byte(nil), twelve...), 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9)...)},
			thenTypes: []string{"TripShared"},
			then: func(t *testing.T, evs []Event, _, _ State) {
				require.Equal(t, "CQkJCQkJCQkJCQkJ", evs[0].(*eventsv1.TripShared).GetShareCode())
			},
		},
		{name: "a second share is a conflict", given: shared, when: Share{Version: 1, Rand: fixedRand(twelve...)}, thenErr: ErrAlreadyShared},
		{
			name:  "a link made before codes grew to 16 characters is still the trip's link and can be revoked",
			given: append(append([]Event(nil), given...), &eventsv1.TripShared{ShareCode: "-_8AAQID"}), when: Unshare{Version: 1},
			thenTypes: []string{"TripUnshared"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.Equal(t, "-_8AAQID", before.Share.Code)
				require.Equal(t, "-_8AAQID", evs[0].(*eventsv1.TripUnshared).GetShareCode())
				require.Equal(t, []string{"-_8AAQID"}, after.Share.Revoked)
			},
		},
		{name: "unsharing the link named revokes it", given: shared, when: Unshare{Version: 1, Code: "-_8AAQIDBAUGBwgJ"}, thenTypes: []string{"TripUnshared"}},
		{
			name: "unsharing a link that is no longer the active one is a conflict and revokes nothing", given: shared,
			when: Unshare{Version: 1, Code: "CQkJCQkJCQkJCQkJ"}, thenErr: &Error{Code: CodeConflict, Reason: "share_link_changed"},
		},
		{name: "unsharing a trip without a link is not found", given: given, when: Unshare{Version: 1}, thenErr: ErrNotFound},
		{name: "a started trip can still be shared", given: started, when: Share{Version: 1, Rand: fixedRand(twelve...)}, thenTypes: []string{"TripShared"}},
		{name: "a share with a stale version is a conflict", given: given, when: Share{Version: 2, Rand: fixedRand(twelve...)}, thenErr: ErrVersionConflict},
		{name: "an unshare with a stale version is a conflict", given: shared, when: Unshare{Version: 2}, thenErr: ErrVersionConflict},
		{name: "a share without a random source is refused", given: given, when: Share{Version: 1}, thenErr: &Error{Code: CodeInvalidArgument, Field: "rand"}},
	})
	t.Run("a share with too little randomness fails instead of making a weak code", func(t *testing.T) {
		t.Parallel()
		evs, err := Decide(s, Share{Version: 1, Rand: fixedRand(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)}, testNow)
		require.Error(t, err)
		require.Nil(t, evs)
	})
}

func TestDelete(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, SettingsPatch{})
	deleted := append(append([]Event(nil), given...), &eventsv1.TripDeleted{RouteHash: testRouteHash})
	run(t, []scenario{
		{
			name:  "deleting records the route hash for housekeeping and moves the version",
			given: given, when: Delete{Version: 1}, thenTypes: []string{"TripDeleted"},
			then: func(t *testing.T, evs []Event, _, after State) {
				require.Equal(t, testRouteHash, evs[0].(*eventsv1.TripDeleted).GetRouteHash())
				require.True(t, after.Deleted)
				require.Equal(t, int64(2), after.Version)
			},
		},
		{name: "a started trip can still be deleted", given: readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2030-05-01"))}), when: Delete{Version: 1}, thenTypes: []string{"TripDeleted"}},
		{name: "a delete with a stale version is a conflict", given: given, when: Delete{Version: 5}, thenErr: ErrVersionConflict},
		{name: "a deleted trip answers not found to a write", given: deleted, when: Share{Version: 2, Rand: fixedRand(twelve...)}, thenErr: ErrNotFound},
		{name: "a deleted trip answers not found to a worker result", given: deleted, when: RecordLabels{}, thenErr: ErrNotFound},
		{name: "a deleted trip answers not found to another delete", given: deleted, when: Delete{Version: 2}, thenErr: ErrNotFound},
		{name: "a trip that never existed is not found", when: Delete{Version: 1}, thenErr: ErrNotFound},
	})
}

func TestDuplicate(t *testing.T) {
	t.Parallel()
	srcEvents := readyTrip(t, SettingsPatch{AverageSpeedKmH: ptr(18.0)}, AddRestDay{Version: 1, AfterIndex: 0})
	src := Load(testTripID, "user-1", srcEvents)
	src = applied(src, history2(t, src, Share{Version: 2, Rand: fixedRand(twelve...)})...)
	deletedSrc := applied(src, &eventsv1.TripDeleted{})
	computingSrc := Load(testTripID, "user-1", history(t, uploaded(SettingsPatch{})))
	run(t, []scenario{
		{
			name: "a duplicate copies route, settings and stages but not the share",
			when: Duplicate{Source: src}, thenTypes: []string{"TripDuplicated"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, int64(1), after.Version)
				require.Equal(t, testTripID, after.DuplicatedFrom)
				require.Equal(t, src.Title, after.Title)
				require.Equal(t, src.Settings, after.Settings)
				require.Equal(t, *src.Route, *after.Route)
				require.Len(t, after.Stages, 4)
				for i := range src.Stages {
					require.Equal(t, src.Stages[i].ContentHash, after.Stages[i].ContentHash)
					require.Equal(t, src.Stages[i].Geometry, after.Stages[i].Geometry)
				}
				require.False(t, after.Share.Active())
				require.Equal(t, ComputationDone, after.StagesProgress.Status)
			},
		},
		{
			name: "a duplicate takes a new title when given one",
			when: Duplicate{Source: src, Title: "Copy"}, thenTypes: []string{"TripDuplicated"},
			then: func(t *testing.T, _ []Event, _, after State) { require.Equal(t, "Copy", after.Title) },
		},
		{name: "a deleted source is not found", when: Duplicate{Source: deletedSrc}, thenErr: ErrNotFound},
		{name: "a source still computing its stages must be waited for", when: Duplicate{Source: computingSrc}, thenErr: &Error{Code: CodePreconditionFailed, Awaiting: ComputationStages}},
		{name: "a duplicate into an existing trip is a conflict", given: srcEvents, when: Duplicate{Source: src}, thenErr: ErrTripExists},
	})
}

// TestTwoClocks checks ARCHITECTURE §3's table: which writes move the trip
// version and which do not.
func TestTwoClocks(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, SettingsPatch{})
	s := Load(testTripID, "", given)
	withOffer := applied(s, history2(t, s, RecordAccommodationsFound{Availability: "available", Stages: []FoundAccommodations{{
		Stage: StageRef{ContentHash: s.Stages[0].ContentHash}, Candidates: []Accommodation{{ProviderID: "p", Name: "n", Location: s.Stages[0].End}},
	}}})...)
	idle := applied(s, &eventsv1.AnalysisCompleted{AnalysisId: s.Analyses[0].ID})
	moves := map[string]struct {
		s     State
		cmd   Command
		moves bool
	}{
		"settings":             {s, UpdateSettings{Version: 1, Patch: SettingsPatch{DepartureHour: ptr(6)}}, true},
		"insert":               {s, InsertStage{Version: 1, Start: s.Stages[0].Start, End: s.Stages[0].End}, true},
		"update":               {s, UpdateStage{Version: 1, End: ptr(s.Stages[1].Start)}, true},
		"move":                 {s, MoveStage{Version: 1, From: 0, To: 2}, true},
		"delete stage":         {s, DeleteStage{Version: 1, Index: 1}, true},
		"rest day":             {s, AddRestDay{Version: 1, AfterIndex: 1}, true},
		"choose accommodation": {withOffer, ChooseAccommodation{Version: 1, ProviderID: "p"}, true},
		"delete":               {s, Delete{Version: 1}, true},
		"add waypoint":         {s, AddWaypoint{Version: 1, ID: waypointID, Name: "w", Location: s.Stages[0].End}, false},
		"analyze":              {idle, Analyze{Version: 1, AnalysisID: analysisID}, false},
		"re-scan":              {s, RescanAccommodations{Version: 1, RadiusM: 3000}, false},
		"share":                {s, Share{Version: 1, Rand: fixedRand(twelve...)}, false},
	}
	for name, m := range moves {
		verb := "does not move"
		if m.moves {
			verb = "moves"
		}
		t.Run(name+" "+verb+" the trip version", func(t *testing.T) {
			t.Parallel()
			evs, err := Decide(m.s, m.cmd, testNow)
			require.NoError(t, err)
			after := applied(m.s, evs...)
			if m.moves {
				require.Equal(t, m.s.Version+1, after.Version)
			} else {
				require.Equal(t, m.s.Version, after.Version)
			}
			require.Equal(t, m.s.StreamVersion+int64(len(evs)), after.StreamVersion, "the stream version counts every event")
		})
	}
}
