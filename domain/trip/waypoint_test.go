package trip

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

func TestWaypointDetour(t *testing.T) {
	t.Parallel()
	base := readyTrip(t, SettingsPatch{})
	s := Load(testTripID, "", base)
	onRoute := s.Stages[1].Geometry[1]
	off := route.Point{Lat: onRoute.Lat, Lon: onRoute.Lon + 0.01}
	added := append(append([]Event(nil), base...), history2(t, s, AddWaypoint{Version: 1, StageIndex: 1, ID: waypointID, Name: "Spring", Category: "water", Location: off})...)
	withWaypoint := Load(testTripID, "", added)
	estimate := withWaypoint.Stages[1].Waypoints[0].DetourM
	stage1 := StageRef{Index: 1, ContentHash: withWaypoint.Stages[1].ContentHash}
	routed := RecordWaypointDetour{WaypointID: waypointID, Stage: stage1, DetourM: 1234.567, Engine: "osrm"}
	// Stage 0 re-cut at 15 km: stage 1 gets new content and keeps the waypoint.
	recut := append(append([]Event(nil), added...), history2(t, withWaypoint, UpdateStage{Version: 1, Index: 0, DistanceM: ptr(15000.0), Route: route.Line{Points: testRoute()}})...)
	deleted := append(append([]Event(nil), added...), history2(t, withWaypoint, Delete{Version: 1})...)
	done := append(append([]Event(nil), added...), history2(t, withWaypoint, routed)...)
	otherID := "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"

	run(t, []scenario{
		{
			name:  "a routed detour replaces the estimate and is no longer said to be one",
			given: added, when: routed,
			thenTypes: []string{"WaypointDetourRouted"},
			then: func(t *testing.T, evs []Event, before, after State) {
				ev := evs[0].(*eventsv1.WaypointDetourRouted)
				require.Equal(t, waypointID, ev.GetWaypointId())
				require.Equal(t, uint32(1), ev.GetStageIndex())
				require.Equal(t, stage1.ContentHash, ev.GetStageContentHash())
				require.Equal(t, "osrm", ev.GetRoutingEngine())
				require.True(t, before.Stages[1].Waypoints[0].DetourEstimated)
				w := after.Stages[1].Waypoints[0]
				require.False(t, w.DetourEstimated)
				require.Equal(t, 1234.57, w.DetourM, "rounded to the centimetre")
				require.NotEqual(t, estimate, w.DetourM)
				require.Equal(t, "Spring", w.Name, "the rest of the waypoint is untouched")
				require.Equal(t, before.Version, after.Version, "a routed detour does not move the trip version")
				require.Equal(t, before.Stages[1].ContentHash, after.Stages[1].ContentHash)
			},
		},
		{
			name:  "a detour routed from a stage edited since records nothing and the estimate stays",
			given: recut, when: routed,
			then: func(t *testing.T, _ []Event, before, _ State) {
				_, w, ok := before.WaypointByID(waypointID)
				require.True(t, ok, "the waypoint survived the re-cut")
				require.True(t, w.DetourEstimated)
			},
		},
		{
			name:  "editing the stage of a routed waypoint puts it back on the estimate and asks for it to be routed again",
			given: done, when: UpdateStage{Version: 1, Index: 0, DistanceM: ptr(15000.0), Route: route.Line{Points: testRoute()}},
			thenTypes: []string{"StageUpdated", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.False(t, before.Stages[1].Waypoints[0].DetourEstimated, "routed before the edit")
				st, w, ok := after.WaypointByID(waypointID)
				require.True(t, ok)
				require.True(t, w.DetourEstimated, "a detour routed from the old line no longer measures the way there")
				require.Equal(t, roundM(detourEstimate(w.Location, st.line())), w.DetourM, "the estimate from the new line")
				require.Equal(t, []string{waypointID}, evs[1].(*eventsv1.AnalysisRequested).GetEstimatedWaypointIds())
			},
		},
		{
			name:  "an edit elsewhere leaves a routed detour alone and asks for no routing",
			given: done, when: UpdateStage{Version: 1, Index: 2, DistanceM: ptr(5000.0), Route: route.Line{Points: testRoute()}},
			thenTypes: []string{"StageUpdated", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				stillRouted(t, evs, after)
			},
		},
		{
			name:  "a new start date or departure hour leaves a routed detour alone: it depends on the line only",
			given: done, when: UpdateSettings{Version: 1, Patch: SettingsPatch{StartDate: ptr(MustDate("2031-07-01")), DepartureHour: ptr(6)}},
			thenTypes: []string{"TripSettingsUpdated", "AnalysisRequested"},
			then: func(t *testing.T, evs []Event, before, after State) {
				require.NotEqual(t, before.Stages[1].ContentHash, after.Stages[1].ContentHash, "the content (dates, pace) changed")
				stillRouted(t, evs, after)
			},
		},
		{
			name:      "an analysis the rider asks for names every waypoint still on its estimate",
			given:     append(append([]Event(nil), added...), &eventsv1.AnalysisFailed{AnalysisId: s.Analyses[0].ID}),
			when:      Analyze{Version: withWaypoint.Version, AnalysisID: analysisID},
			thenTypes: []string{"AnalysisRequested"},
			then: func(t *testing.T, evs []Event, _, _ State) {
				require.Equal(t, []string{waypointID}, evs[0].(*eventsv1.AnalysisRequested).GetEstimatedWaypointIds())
			},
		},
		{name: "a detour for a waypoint the trip does not have records nothing", given: added, when: RecordWaypointDetour{WaypointID: otherID, Stage: stage1, DetourM: 10, Engine: "osrm"}},
		{name: "a detour already routed records nothing", given: done, when: RecordWaypointDetour{WaypointID: waypointID, Stage: stage1, DetourM: 999, Engine: "osrm"}},
		{name: "a detour for a deleted trip is not found", given: deleted, when: routed, thenErr: ErrNotFound},
		{name: "a detour for a trip that does not exist is not found", when: routed, thenErr: ErrNotFound},
		{name: "a negative detour is refused", given: added, when: RecordWaypointDetour{WaypointID: waypointID, Stage: stage1, DetourM: -1, Engine: "osrm"}, thenErr: &Error{Code: CodeInvalidArgument, Field: "detourM"}},
		{name: "a detour that is not a number is refused", given: added, when: RecordWaypointDetour{WaypointID: waypointID, Stage: stage1, DetourM: math.NaN(), Engine: "osrm"}, thenErr: &Error{Code: CodeInvalidArgument, Field: "detourM"}},
		{name: "an infinite detour is refused", given: added, when: RecordWaypointDetour{WaypointID: waypointID, Stage: stage1, DetourM: math.Inf(1), Engine: "osrm"}, thenErr: &Error{Code: CodeInvalidArgument, Field: "detourM"}},
		{name: "a detour without its routing engine is refused", given: added, when: RecordWaypointDetour{WaypointID: waypointID, Stage: stage1, DetourM: 10, Engine: "  "}, thenErr: &Error{Code: CodeInvalidArgument, Field: "engine"}},
		{name: "a detour for a waypoint id that is not a UUID is refused", given: added, when: RecordWaypointDetour{WaypointID: "w1", Stage: stage1, DetourM: 10, Engine: "osrm"}, thenErr: &Error{Code: CodeInvalidArgument, Field: "waypointId"}},
	})

	t.Run("the estimate is twice the distance to the stage's nearest point, where the routed detour starts", func(t *testing.T) {
		t.Parallel()
		st := withWaypoint.Stages[1]
		near := st.NearestPoint(off)
		require.InDelta(t, estimate, 2*route.Haversine(off, near), 0.01)
		for _, p := range st.Geometry {
			require.LessOrEqual(t, route.Haversine(off, near), route.Haversine(off, p)+1e-6, "no vertex is nearer")
		}
	})

	t.Run("a routed detour for a stage content the trip no longer has changes nothing when folded", func(t *testing.T) {
		t.Parallel()
		after := Evolve(withWaypoint, &eventsv1.WaypointDetourRouted{WaypointId: waypointID, StageContentHash: testRouteHash, DetourM: 5, RoutingEngine: "osrm"})
		require.Equal(t, withWaypoint.StreamVersion+1, after.StreamVersion)
		after.StreamVersion = withWaypoint.StreamVersion
		require.Equal(t, withWaypoint, after)
	})
}

func TestAccommodationSearchProgress(t *testing.T) {
	t.Parallel()
	given := readyTrip(t, SettingsPatch{})
	s := Load(testTripID, "", given)
	requested := append(append([]Event(nil), given...), history2(t, s, RescanAccommodations{Version: 1, RadiusM: 5000})...)
	run(t, []scenario{
		{
			name:  "a trip where no search was ever requested has no accommodation search",
			given: given, when: RescanAccommodations{Version: 1, RadiusM: 5000},
			thenTypes: []string{"AccommodationsRequested"},
			then: func(t *testing.T, _ []Event, before, after State) {
				require.Equal(t, ComputationNone, before.AccommodationSearch.Status)
				require.Equal(t, ComputationRequested, after.AccommodationSearch.Status)
			},
		},
		{
			name:  "a search answered not_configured is done and says so, even with no candidates",
			given: requested, when: RecordAccommodationsFound{RadiusM: 5000, Availability: "not_configured", Stages: []FoundAccommodations{{Stage: StageRef{Index: 0, ContentHash: s.Stages[0].ContentHash}}}},
			thenTypes: []string{"AccommodationsFound"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.Equal(t, AccommodationSearch{Status: ComputationDone, Availability: NotConfigured}, after.AccommodationSearch)
				require.Empty(t, after.Stages[0].Offered)
			},
		},
	})
}

// stillRouted checks that the waypoint kept its routed detour and that no
// analysis the change requested asks for routing.
func stillRouted(t *testing.T, evs []Event, after State) {
	t.Helper()
	_, w, _ := after.WaypointByID(waypointID)
	require.False(t, w.DetourEstimated)
	require.Equal(t, 1234.57, w.DetourM)
	for _, e := range evs {
		if ar, ok := e.(*eventsv1.AnalysisRequested); ok {
			require.Empty(t, ar.GetEstimatedWaypointIds())
		}
	}
}

func TestRerouted(t *testing.T) {
	t.Parallel()
	a := Stage{Start: route.Point{Lat: 60, Lon: 10}, End: route.Point{Lat: 60.1, Lon: 10}}
	b := Stage{Start: route.Point{Lat: 60.1, Lon: 10}, End: route.Point{Lat: 60.2, Lon: 10}}
	routedOn := func(st Stage, id string) Waypoint {
		return Waypoint{ID: id, Location: route.Point{Lat: 60.1, Lon: 10.01}, DetourM: 1200, MeasuredOn: st.lineKey()}
	}

	t.Run("a waypoint that moved onto a stage whose content did not change is named", func(t *testing.T) {
		t.Parallel()
		before := State{Stages: []Stage{a, b}}
		before.Stages[1].Waypoints = []Waypoint{routedOn(b, "w")}
		after := State{Stages: []Stage{a, b}}
		after.Stages[0].Waypoints = []Waypoint{routedOn(b, "w")} // moved by a re-cut; b's line key is not a's
		settleDetours(&after.Stages[0])
		require.True(t, after.Stages[0].Waypoints[0].DetourEstimated)
		require.Equal(t, []string{"w"}, rerouted(before, after))
	})

	t.Run("a waypoint whose line did not change is not named, and at most MaxRerouteWaypoints are", func(t *testing.T) {
		t.Parallel()
		before := State{Stages: []Stage{a}}
		after := State{Stages: []Stage{a}}
		for i := range MaxRerouteWaypoints + 50 {
			w := routedOn(b, fmt.Sprintf("w%d", i))
			before.Stages[0].Waypoints = append(before.Stages[0].Waypoints, w)
			after.Stages[0].Waypoints = append(after.Stages[0].Waypoints, w)
		}
		kept := routedOn(a, "kept")
		before.Stages[0].Waypoints = append(before.Stages[0].Waypoints, kept)
		after.Stages[0].Waypoints = append(after.Stages[0].Waypoints, kept)
		settleDetours(&after.Stages[0])
		ids := rerouted(before, after)
		require.Len(t, ids, MaxRerouteWaypoints)
		require.NotContains(t, ids, "kept", "measured on this very line: still routed")
		_, w, _ := after.WaypointByID("kept")
		require.False(t, w.DetourEstimated)
	})
}
