package trip

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/roadbook/roadbook/domain/pacing"
	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// legacyTrip is a ready trip as the distance-only engine left it: its
// TripCreated carries the settings an old event has (no daily hours,
// preset or engine; the old defaults 0.9 / 50 m / 80 km / 15 km/h) and its
// stages were computed for the old settings hash.
func legacyTrip(t *testing.T) []Event {
	t.Helper()
	evs := history(t, uploaded(SettingsPatch{}))
	created := proto.Clone(evs[0].(*eventsv1.TripCreated)).(*eventsv1.TripCreated)
	created.Settings = &eventsv1.TripSettings{FatigueFactor: 0.9, ElevationPenaltyMPerKm: 50, MaxDistancePerDayKm: 80,
		AverageSpeedKmPerH: 15, DepartureHour: 8, EnabledAccommodationTypes: created.GetSettings().GetEnabledAccommodationTypes()}
	evs = append([]Event{created}, evs[1:]...)
	s := applied(State{ID: testTripID}, evs...)
	return append(evs, history2(t, s, stageResult(s, 10000, 20000))...)
}

func TestExistingTrips(t *testing.T) {
	t.Parallel()

	t.Run("a trip from before the effort model folds to engine 1 with its old key, so its days stay", func(t *testing.T) {
		t.Parallel()
		s := Load(testTripID, "", legacyTrip(t))
		require.Equal(t, EngineDistance, s.Settings.Engine)
		require.Equal(t, pacing.PresetCustom, s.Settings.Preset)
		require.Equal(t, 5.3, s.Settings.DailyRidingHours, "80 km at 15 km/h")
		require.Zero(t, s.Settings.RestDayEvery)
		// The settings hash is the old formula's, byte for byte: the
		// stages are for the key the trip asks for, nothing to recompute.
		require.Equal(t, s.StagesKey(), s.StagesProgress.For)
		require.Equal(t, ComputationDone, s.StagesProgress.Status)
		require.Len(t, s.Stages, 3)
	})

	run(t, []scenario{
		{
			name:  "a departure change keeps the old engine's days and key",
			given: legacyTrip(t), when: UpdateSettings{Version: 1, Patch: SettingsPatch{DepartureHour: ptr(6)}},
			thenTypes: []string{"TripSettingsUpdated", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, before, after State) {
				require.Equal(t, EngineDistance, after.Settings.Engine)
				require.Equal(t, before.StagesProgress.For, after.StagesProgress.For)
				require.Equal(t, ComputationDone, after.StagesProgress.Status)
				require.Equal(t, before.Stages[1].Geometry, after.Stages[1].Geometry)
			},
		},
		{
			name: "a trip from before with a manual edit keeps it through a change that does not move the split",
			given: func() []Event {
				evs := legacyTrip(t)
				s := Load(testTripID, "", evs)
				return append(evs, history2(t, s, InsertStage{Version: s.Version, Position: 3, Start: s.Stages[2].End,
					End: route.Point{Lat: s.Stages[2].End.Lat + 0.1, Lon: s.Stages[2].End.Lon}})...)
			}(),
			when:      UpdateSettings{Version: 2, Patch: SettingsPatch{DepartureHour: ptr(6)}},
			thenTypes: []string{"TripSettingsUpdated", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, before, after State) {
				require.Len(t, after.Stages, 4)
				require.True(t, after.Stages[3].Origin.Manual())
				require.Equal(t, EngineDistance, after.Settings.Engine)
				require.Equal(t, ComputationDone, after.StagesProgress.Status)
				for i := range before.Stages {
					require.Equal(t, before.Stages[i].Geometry, after.Stages[i].Geometry, "stage %d", i)
				}
			},
		},
		{
			name:  "a change of what moves the split re-paces with the effort model",
			given: legacyTrip(t), when: UpdateSettings{Version: 1, Patch: SettingsPatch{AverageSpeedKmH: ptr(17.0)}},
			thenTypes: []string{"TripSettingsUpdated"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.Equal(t, EngineCurrent, after.Settings.Engine)
				require.Equal(t, uint32(EngineCurrent), evs[0].(*eventsv1.TripSettingsUpdated).GetSettings().GetPacingEngine())
				require.Equal(t, 5.3, after.Settings.DailyRidingHours, "the derived capacity is kept, now written")
				require.Equal(t, ComputationRequested, after.StagesProgress.Status)
				require.NotEqual(t, before.StagesProgress.For, after.StagesProgress.For)
			},
		},
		{
			name:  "repace moves an engine-1 trip to the effort model with its values unchanged",
			given: legacyTrip(t), when: UpdateSettings{Version: 1, Repace: true},
			thenTypes: []string{"TripSettingsUpdated"},
			then: func(t *testing.T, _ []Event, before, after State) {
				require.Equal(t, EngineCurrent, after.Settings.Engine)
				require.Equal(t, before.Settings.MaxDistancePerDayKm, after.Settings.MaxDistancePerDayKm)
				require.Equal(t, ComputationRequested, after.StagesProgress.Status)
			},
		},
		{
			name:  "repace is refused on days the current engine cut",
			given: readyTrip(t, SettingsPatch{}), when: UpdateSettings{Version: 1, Repace: true},
			thenErr: &Error{Code: CodeInvalidArgument, Field: "repace"},
		},
		{
			name:  "a preset sets its values, and the trip shows it",
			given: readyTrip(t, SettingsPatch{}), when: UpdateSettings{Version: 1, Patch: SettingsPatch{Preset: ptr(pacing.PresetExpert)}},
			thenTypes: []string{"TripSettingsUpdated"},
			then: func(t *testing.T, evs []Event, _, after State) {
				require.Equal(t, pacing.PresetExpert, after.Settings.Preset)
				require.Equal(t, 8.0, after.Settings.DailyRidingHours)
				require.Equal(t, 22.0, after.Settings.AverageSpeedKmH)
				require.Equal(t, "expert", evs[0].(*eventsv1.TripSettingsUpdated).GetSettings().GetPreset())
			},
		},
		{
			name:  "a preset with one value changed is custom",
			given: readyTrip(t, SettingsPatch{}), when: UpdateSettings{Version: 1, Patch: SettingsPatch{Preset: ptr(pacing.PresetBeginner), DailyRidingHours: ptr(5.0)}},
			thenTypes: []string{"TripSettingsUpdated"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, pacing.PresetCustom, after.Settings.Preset)
				require.Equal(t, 14.0, after.Settings.AverageSpeedKmH)
				require.Equal(t, 5.0, after.Settings.DailyRidingHours)
			},
		},
		{
			name:  "a daily capacity out of range is refused naming the field",
			given: readyTrip(t, SettingsPatch{}), when: UpdateSettings{Version: 1, Patch: SettingsPatch{DailyRidingHours: ptr(20.0)}},
			thenErr: &Error{Code: CodeInvalidArgument, Field: "dailyRidingHours"},
		},
		{
			name:  "a rest-day rhythm of 1 is refused naming the field",
			given: readyTrip(t, SettingsPatch{}), when: UpdateSettings{Version: 1, Patch: SettingsPatch{RestDayEvery: ptr(1)}},
			thenErr: &Error{Code: CodeInvalidArgument, Field: "restDayEvery"},
		},
	})

	t.Run("a new trip is the effort model's, intermediate", func(t *testing.T) {
		t.Parallel()
		s := Load(testTripID, "", readyTrip(t, SettingsPatch{}))
		require.Equal(t, EngineCurrent, s.Settings.Engine)
		require.Equal(t, pacing.PresetIntermediate, s.Settings.Preset)
		p := s.Settings.Pacing()
		require.NoError(t, p.Validate())
		require.Equal(t, pacing.Defaults().DailyRidingHours, p.DailyRidingHours)
	})
}

func TestTotals(t *testing.T) {
	t.Parallel()

	t.Run("a trip's totals are its riding days' sums, the route's before it has days", func(t *testing.T) {
		t.Parallel()
		evs := history(t, uploaded(SettingsPatch{}))
		s := Load(testTripID, "", evs)
		require.Equal(t, s.Route.DistanceM, s.Totals().DistanceM)
		s = Load(testTripID, "", readyTrip(t, SettingsPatch{}))
		sum := 0.0
		for _, st := range s.Stages {
			sum += st.DistanceM
		}
		require.Equal(t, sum, s.Totals().DistanceM)
		evs = readyTrip(t, SettingsPatch{}, AddRestDay{Version: 1, AfterIndex: 0})
		rested := Load(testTripID, "", evs)
		require.Equal(t, s.Totals(), rested.Totals(), "a rest day adds nothing")
	})
}
