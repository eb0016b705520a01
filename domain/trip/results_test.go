package trip

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

const (
	waypointID = "0b6e7a52-9c1f-4d2e-8a3b-5c6d7e8f9a0b"
	analysisID = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
)

func TestAddWaypoint(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, SettingsPatch{})
	s := Load(testTripID, "", given)
	onRoute := s.Stages[1].Geometry[1]
	// 0.01° of longitude east of a route vertex at 60.1° N is about 556 m.
	off := route.Point{Lat: onRoute.Lat, Lon: onRoute.Lon + 0.01}
	run(t, []scenario{
		{
			name:  "a waypoint is stored with a detour of twice its distance from the route, flagged as an estimate",
			given: given, when: AddWaypoint{Version: 1, StageIndex: 1, ID: waypointID, Name: "Spring", Category: "water", Location: off},
			thenTypes: []string{"WaypointAdded"},
			then: func(t *testing.T, evs []Event, _, after State) {
				w := after.Stages[1].Waypoints[0]
				require.True(t, w.DetourEstimated)
				require.LessOrEqual(t, w.DetourM, 2*route.Haversine(off, onRoute)+0.01)
				require.InDelta(t, 2*route.Haversine(off, onRoute), w.DetourM, 60, "the route runs nearly north-south here")
				require.Equal(t, int64(1), after.Version, "a waypoint does not move the trip version")
			},
		},
		{
			name:      "a waypoint survives a re-cut of its stage",
			given:     append(given, history2(t, s, AddWaypoint{Version: 1, StageIndex: 1, ID: waypointID, Name: "Spring", Location: off})...),
			when:      UpdateStage{Version: 1, Index: 0, DistanceM: ptr(15000.0), Route: route.Line{Points: testRoute()}},
			thenTypes: []string{"StageUpdated", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, _, after State) {
				n := 0
				for _, st := range after.Stages {
					n += len(st.Waypoints)
				}
				require.Equal(t, 1, n)
			},
		},
		{name: "a waypoint without a name is refused", given: given, when: AddWaypoint{Version: 1, StageIndex: 1, ID: waypointID, Location: off}, thenErr: &Error{Code: CodeInvalidArgument, Field: "name"}},
		{name: "a waypoint id that is not a UUID is refused", given: given, when: AddWaypoint{Version: 1, StageIndex: 1, ID: "w1", Name: "x", Location: off}, thenErr: &Error{Code: CodeInvalidArgument, Field: "waypointId"}},
		{name: "a waypoint on a missing stage is refused", given: given, when: AddWaypoint{Version: 1, StageIndex: 7, ID: waypointID, Name: "x", Location: off}, thenErr: &Error{Code: CodeInvalidArgument, Field: "stageIndex"}},
		{name: "a waypoint off the globe is refused", given: given, when: AddWaypoint{Version: 1, StageIndex: 1, ID: waypointID, Name: "x", Location: route.Point{Lon: 181}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "location"}},
		{name: "a started trip refuses waypoints", given: readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2030-06-01"))}), when: AddWaypoint{Version: 1, ID: waypointID, Name: "x", Location: off}, thenErr: ErrLocked},
		{name: "a waypoint with a stale version is a conflict", given: given, when: AddWaypoint{Version: 3, ID: waypointID, Name: "x", Location: off}, thenErr: ErrVersionConflict},
	})
}

func TestAccommodations(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, SettingsPatch{})
	s := Load(testTripID, "", given)
	place := route.Point{Lat: s.Stages[0].End.Lat + 0.001, Lon: s.Stages[0].End.Lon + 0.002}
	found := RecordAccommodationsFound{RadiusM: 5000, Availability: "available", Stages: []FoundAccommodations{{
		Stage:      StageRef{Index: 0, ContentHash: s.Stages[0].ContentHash},
		Candidates: []Accommodation{{ProviderID: "osm:node/7", Name: "Camping Elv", Type: AccommodationCampSite, Location: place, PriceMinEUR: 8, PriceMaxEUR: 15}},
	}}}
	offered := append(append([]Event(nil), given...), history2(t, s, found)...)
	run(t, []scenario{
		{
			name:  "candidates found for a current stage are offered",
			given: given, when: found, thenTypes: []string{"AccommodationsFound"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, "Camping Elv", after.Stages[0].Offered[0].Name)
				require.Equal(t, int64(1), after.Version)
			},
		},
		{
			name:  "candidates found for content the trip no longer has record nothing",
			given: given, when: RecordAccommodationsFound{Availability: "available", Stages: []FoundAccommodations{{Stage: StageRef{ContentHash: testRouteHash}}}},
		},
		{
			name:  "choosing an offered place moves the stage end and the next start to it",
			given: offered, when: ChooseAccommodation{Version: 1, StageIndex: 0, ProviderID: "osm:node/7"},
			thenTypes: []string{"AccommodationChosen", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.InDelta(t, place.Lat, after.Stages[0].End.Lat, 1e-6)
				require.InDelta(t, place.Lon, after.Stages[1].Start.Lon, 1e-6)
				require.Greater(t, after.Stages[0].DistanceM, before.Stages[0].DistanceM)
				require.Equal(t, "osm:node/7", after.Stages[0].Chosen.ProviderID)
				require.Equal(t, int64(2), after.Version, "a choice moves the trip version")
				require.Len(t, evs[1].(*eventsv1.AnalysisRequested).GetStages(), 2)
				require.Equal(t, before.Stages[2], after.Stages[2])
			},
		},
		{
			name:  "a manual entry is chosen as such",
			given: given, when: ChooseAccommodation{Version: 1, StageIndex: 1, Manual: &Accommodation{Name: "Aunt Kari", Location: place}},
			thenTypes: []string{"AccommodationChosen", "AnalysisRequested"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.True(t, after.Stages[1].Chosen.Manual)
			},
		},
		{name: "choosing a place no longer offered is a conflict", given: offered, when: ChooseAccommodation{Version: 1, StageIndex: 0, ProviderID: "osm:node/8"}, thenErr: ErrNotOffered},
		{name: "choosing for a stage with no candidates is a conflict", given: offered, when: ChooseAccommodation{Version: 1, StageIndex: 1, ProviderID: "osm:node/7"}, thenErr: ErrConflict},
		{name: "choosing both an offered and a manual place is refused", given: offered, when: ChooseAccommodation{Version: 1, ProviderID: "osm:node/7", Manual: &Accommodation{Name: "x"}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "accommodationId"}},
		{name: "a started trip refuses accommodation choices", given: readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2030-01-01"))}), when: ChooseAccommodation{Version: 1, ProviderID: "osm:node/7"}, thenErr: ErrLocked},
		{name: "an unknown availability is refused", given: given, when: RecordAccommodationsFound{Availability: "maybe"}, thenErr: &Error{Code: CodeInvalidArgument, Field: "availability"}},
		{
			name:  "a re-scan is requested without moving the version",
			given: given, when: RescanAccommodations{Version: 1, RadiusM: 12000, StageIndexes: []int{2}},
			thenTypes: []string{"AccommodationsRequested"},
		},
		{name: "a re-scan radius over 15 km is refused", given: given, when: RescanAccommodations{Version: 1, RadiusM: 20000}, thenErr: &Error{Code: CodeInvalidArgument, Field: "radiusKm"}},
	})
}

func TestAnalysis(t *testing.T) {
	t.Parallel()
	// A ready trip whose automatic analysis has completed.
	base := readyTrip(t, SettingsPatch{})
	s := Load(testTripID, "", base)
	auto := s.Analyses[0]
	var results []StageAnalysis
	for _, st := range s.Stages {
		results = append(results, StageAnalysis{Stage: StageRef{Index: st.Index, ContentHash: st.ContentHash},
			Families: map[Family]Availability{"geometry": "available", "weather": "not_configured"}})
	}
	idle := append(append([]Event(nil), base...), history2(t, s, RecordAnalysis{AnalysisID: auto.ID, Stages: results, Final: true})...)
	// An edit of stage 2 while the automatic analysis of stages 0..2 runs.
	edited := append(append([]Event(nil), base...), history2(t, s, UpdateStage{Version: 1, Index: 2, End: ptr(testRoute()[290])})...)
	steep := Alert{Code: "elevation_gain", Severity: "warning", Message: "stage climbs more than 1200 m", Family: "geometry",
		Action: &AlertAction{Kind: "split_stage", AtDistanceM: 5000}}
	run(t, []scenario{
		{
			name:  "analyze requests an analysis of every stage without moving the version",
			given: idle, when: Analyze{Version: 1, AnalysisID: analysisID},
			thenTypes: []string{"AnalysisRequested"},
			then: func(t *testing.T, evs []Event, _, after State) {
				require.Len(t, evs[0].(*eventsv1.AnalysisRequested).GetStages(), 3)
				require.True(t, after.AnalysisRunning())
				require.Equal(t, int64(1), after.Version)
			},
		},
		{name: "analyze while one is running is refused", given: base, when: Analyze{Version: 1, AnalysisID: analysisID}, thenErr: ErrAlreadyRunning},
		{name: "analyze on a started trip is allowed", given: append(readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2030-05-01"))}), &eventsv1.AnalysisFailed{AnalysisId: Load(testTripID, "", readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2030-05-01"))})).Analyses[0].ID}), when: Analyze{Version: 1, AnalysisID: analysisID}, thenTypes: []string{"AnalysisRequested"}},
		{name: "analyze while stages are computed waits for them", given: history(t, uploaded(SettingsPatch{})), when: Analyze{Version: 1, AnalysisID: analysisID}, thenErr: &Error{Code: CodePreconditionFailed, Awaiting: ComputationStages}},
		{name: "analyze with an id that is not a UUID is refused", given: idle, when: Analyze{Version: 1, AnalysisID: "x"}, thenErr: &Error{Code: CodeInvalidArgument, Field: "analysisId"}},
		{name: "analyze with a stale version is a conflict", given: idle, when: Analyze{Version: 4, AnalysisID: analysisID}, thenErr: ErrVersionConflict},
		{
			name:  "results for unchanged stages land while the edited stage's are superseded",
			given: edited, when: RecordAnalysis{AnalysisID: auto.ID, Stages: []StageAnalysis{
				{Stage: results[0].Stage, Alerts: []Alert{steep}, Families: results[0].Families},
				results[1], results[2],
			}, Final: true},
			thenTypes: []string{"AnalysisSuperseded", "AnalysisCompleted"},
			then: func(t *testing.T, evs []Event, _, after State) {
				require.Equal(t, []string{results[2].Stage.ContentHash}, evs[0].(*eventsv1.AnalysisSuperseded).GetStageContentHashes())
				require.Equal(t, "elevation_gain", after.Stages[0].Alerts[0].Code)
				require.Equal(t, "split_stage", after.Stages[0].Alerts[0].Action.Kind)
				require.Equal(t, NotConfigured, after.Stages[0].Families["weather"])
				require.True(t, after.Stages[1].Analyzed)
				require.False(t, after.Stages[2].Analyzed, "the edited stage waits for its own analysis")
				require.True(t, after.AnalysisRunning(), "the edit's own analysis is still running")
			},
		},
		{
			name:  "an unavailable family keeps its reason, cut to the event's limit",
			given: base, when: RecordAnalysis{AnalysisID: auto.ID, Stages: []StageAnalysis{{Stage: results[0].Stage,
				Families: map[Family]Availability{"geometry": "available", "weather": "unavailable", "traffic": "unavailable"},
				Reasons:  map[Family]string{"weather": "the trip has no dates to forecast", "traffic": strings.Repeat("é", 150)}}}},
			thenTypes: []string{"AnalysisPartCompleted"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, map[Family]Availability{"geometry": "available", "weather": "unavailable", "traffic": "unavailable"}, after.Stages[0].Families)
				require.Equal(t, "the trip has no dates to forecast", after.Stages[0].FamilyReasons["weather"])
				require.Equal(t, strings.Repeat("é", MaxFamilyReasonBytes/2), after.Stages[0].FamilyReasons["traffic"], "cut on a rune boundary")
				require.NotContains(t, after.Stages[0].FamilyReasons, "geometry")
			},
		},
		{name: "a reason for a family that ran is refused", given: base,
			when: RecordAnalysis{AnalysisID: auto.ID, Stages: []StageAnalysis{{Stage: results[0].Stage,
				Families: map[Family]Availability{"geometry": "available"}, Reasons: map[Family]string{"geometry": "it was fine"}}}},
			thenErr: &Error{Code: CodeInvalidArgument, Field: "reasons"}},
		{
			name:  "a partial result lands and the analysis keeps running",
			given: base, when: RecordAnalysis{AnalysisID: auto.ID, Stages: results[:1]},
			thenTypes: []string{"AnalysisPartCompleted"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.True(t, after.Stages[0].Analyzed)
				require.Equal(t, []string{results[1].Stage.ContentHash, results[2].Stage.ContentHash}, after.Analyses[0].Pending)
				require.True(t, after.AnalysisRunning())
			},
		},
		{
			name:  "a failure ends the analysis",
			given: base, when: RecordAnalysisFailed{AnalysisID: auto.ID, Reason: "geocoder down", Retryable: true},
			thenTypes: []string{"AnalysisFailed"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, ComputationFailed, after.Analyses[0].Status)
				require.False(t, after.AnalysisRunning())
			},
		},
		{name: "a result for a finished analysis records nothing", given: idle, when: RecordAnalysis{AnalysisID: auto.ID, Stages: results, Final: true}},
		{name: "a failure for a finished analysis records nothing", given: idle, when: RecordAnalysisFailed{AnalysisID: auto.ID}},
		{name: "a result for an unknown analysis is not found", given: base, when: RecordAnalysis{AnalysisID: analysisID}, thenErr: ErrNotFound},
		{name: "a failure for an unknown analysis is not found", given: base, when: RecordAnalysisFailed{AnalysisID: analysisID}, thenErr: ErrNotFound},
		{name: "an alert with an unknown severity is refused", given: base, when: RecordAnalysis{AnalysisID: auto.ID, Stages: []StageAnalysis{{Stage: results[0].Stage, Alerts: []Alert{{Code: "x", Severity: "grave"}}}}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "severity"}},
		{
			name:  "labels land on the stage content they were resolved for",
			given: base, when: RecordLabels{Geocoder: "gazetteer", Labels: []StageLabel{{Stage: results[1].Stage, Start: "Oslo", End: "Hamar"}, {Stage: StageRef{ContentHash: testRouteHash}, Start: "Gone"}}},
			thenTypes: []string{"LabelsResolved"},
			then: func(t *testing.T, evs []Event, _, after State) {
				require.Len(t, evs[0].(*eventsv1.LabelsResolved).GetLabels(), 1)
				require.Equal(t, "Hamar", after.Stages[1].EndLabel)
			},
		},
		{name: "labels only for gone content record nothing", given: base, when: RecordLabels{Labels: []StageLabel{{Stage: StageRef{ContentHash: testRouteHash}}}}},
		{
			name:  "labels that cannot be produced are recorded as unavailable with the reason",
			given: base, when: RecordLabelsUnavailable{Geocoder: "nominatim", Reason: "geocoder unavailable: circuit open", Stages: []StageRef{results[0].Stage, {ContentHash: testRouteHash}}},
			thenTypes: []string{"LabelsUnavailable"},
			then: func(t *testing.T, evs []Event, _, after State) {
				require.Equal(t, []string{results[0].Stage.ContentHash}, evs[0].(*eventsv1.LabelsUnavailable).GetStageContentHashes())
				require.Equal(t, "geocoder unavailable: circuit open", after.Stages[0].LabelsUnavailable)
				require.False(t, after.Stages[0].Labelled)
				relabelled := Evolve(after, &eventsv1.LabelsResolved{Geocoder: "nominatim", Labels: []*eventsv1.StageLabel{{StageContentHash: results[0].Stage.ContentHash}}})
				require.True(t, relabelled.Stages[0].Labelled, "a geocoder that knows no place there still labelled the stage")
				require.Empty(t, relabelled.Stages[0].LabelsUnavailable, "labelling clears the unavailability")
				// Labels recorded empty (a geocoder that knew no place
				// there, before the label rule named such ends) read as
				// the end's coordinates, as the rule names them now:
				// never empty once resolved, so no view waits for them.
				st := relabelled.Stages[0]
				require.Equal(t, route.CoordinatesText(st.Start), st.StartLabel)
				require.Equal(t, route.CoordinatesText(st.End), st.EndLabel)
				require.Regexp(t, `^\d+\.\d\d° [NS], \d+\.\d\d° [EW]$`, st.EndLabel)
			},
		},
		{name: "labels unavailable without a reason are refused", given: base, when: RecordLabelsUnavailable{Stages: []StageRef{results[0].Stage}}, thenErr: &Error{Code: CodeInvalidArgument, Field: "reason"}},
		{name: "labels unavailable only for gone content record nothing", given: base, when: RecordLabelsUnavailable{Reason: "x", Stages: []StageRef{{ContentHash: testRouteHash}}}},
	})
}

func TestEvolveUnknownEvent(t *testing.T) {
	t.Parallel()
	t.Run("an event this version does not know only advances the stream version", func(t *testing.T) {
		t.Parallel()
		s := Load(testTripID, "", readyTrip(t, SettingsPatch{}))
		after := Evolve(s, &eventsv1.Point{Lat: 1})
		require.Equal(t, s.StreamVersion+1, after.StreamVersion)
		after.StreamVersion = s.StreamVersion
		require.Equal(t, s, after)
	})
}
