package trip

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/roadbook/roadbook/domain/route"
)

// fullResupply is a stage result at the contract's bound: MaxResupplyPoints
// points with long names and hours, and MaxResupplyOmitted counts.
func fullResupply(at route.Point) *Resupply {
	r := &Resupply{SegmentM: 10000}
	for i := range MaxResupplyPoints {
		r.Points = append(r.Points, ResupplyPoint{Kind: []ResupplyKind{ResupplyWater, ResupplyShop, ResupplyFood}[i%3],
			Name: fmt.Sprintf("%0250d", i), Location: at, AtM: float64(i) * 100, OffRouteM: 120,
			OpeningHours: fmt.Sprintf("Mo-Sa 08:00-20:00; %0230d", i), Open: ClosedAtPassage})
	}
	for i := range MaxResupplyOmitted {
		r.Omitted = append(r.Omitted, ResupplyOmitted{Segment: i / 3, Kind: ResupplyWater, Count: 7})
	}
	return r
}

func TestResupplyAndWeatherResults(t *testing.T) {
	t.Parallel()
	base := readyTrip(t, SettingsPatch{StartDate: ptr(MustDate("2031-06-01"))})
	s := Load(testTripID, "", base)
	auto := s.Analyses[0]
	at := s.Stages[0].End
	water := ResupplyPoint{Kind: ResupplyWater, Name: "Fontene", Location: at, AtM: 12345.678, OffRouteM: 40}
	shop := ResupplyPoint{Kind: ResupplyShop, Name: "Coop", Location: at, AtM: 20000, OffRouteM: 300,
		OpeningHours: "Mo-Fr 08:00-20:00", Open: ClosedAtPassage}
	weather := &Weather{Location: at, TempMinC: 8, TempMaxC: 17.26, PrecipitationMM: 2.5, PrecipProbabilityPct: 60,
		WindMaxKmh: 25, WindFromDeg: 350, HeadwindKmh: 24.6, HumidityPct: 70, Comfort: 85}
	result := func(r *Resupply, w *Weather) RecordAnalysis {
		var rs []StageAnalysis
		for _, st := range s.Stages {
			rs = append(rs, StageAnalysis{Stage: StageRef{Index: st.Index, ContentHash: st.ContentHash},
				Families: map[Family]Availability{FamilyGeometry: Available}, Resupply: r, Weather: w})
		}
		return RecordAnalysis{AnalysisID: auto.ID, Stages: rs, Final: true}
	}
	run(t, []scenario{
		{
			name:  "resupply points and weather land on the stage content they were found for",
			given: base, when: result(&Resupply{SegmentM: 10000, Points: []ResupplyPoint{water, shop},
				Omitted: []ResupplyOmitted{{Segment: 1, Kind: ResupplyShop, Count: 3}}}, weather),
			thenTypes: []string{"AnalysisCompleted"},
			then: func(t *testing.T, _ []Event, _, after State) {
				r := after.Stages[0].Resupply
				require.NotNil(t, r)
				require.Len(t, r.Points, 2)
				require.Equal(t, "Fontene", r.Points[0].Name)
				require.InDelta(t, 12345.68, r.Points[0].AtM, 1e-9, "distances kept to the centimetre")
				require.Equal(t, ClosedAtPassage, r.Points[1].Open)
				require.Equal(t, "Mo-Fr 08:00-20:00", r.Points[1].OpeningHours)
				require.Equal(t, []ResupplyOmitted{{Segment: 1, Kind: ResupplyShop, Count: 3}}, r.Omitted)
				require.NotNil(t, after.Stages[0].Weather)
				require.InDelta(t, 17.3, after.Stages[0].Weather.TempMaxC, 1e-9, "one decimal")
				require.False(t, after.Stages[0].Weather.Typical)
			},
		},
		{
			name:  "an empty result says the data was looked at and nothing found; none says it was not",
			given: base, when: result(&Resupply{SegmentM: 10000}, nil),
			thenTypes: []string{"AnalysisCompleted"},
			then: func(t *testing.T, _ []Event, _, after State) {
				require.NotNil(t, after.Stages[0].Resupply)
				require.Empty(t, after.Stages[0].Resupply.Points)
				require.Nil(t, after.Stages[0].Weather)
			},
		},
		{
			name:  "a long trip's results are split over several events, each within the store's limit",
			given: base, when: result(fullResupply(at), weather),
			thenTypes: []string{"AnalysisPartCompleted", "AnalysisPartCompleted", "AnalysisCompleted"},
			then: func(t *testing.T, evs []Event, _, after State) {
				for _, e := range evs {
					b, err := protojson.Marshal(e)
					require.NoError(t, err)
					require.Less(t, len(b), 1<<20, "within eventstore.MaxPayloadBytes")
				}
				for _, st := range after.Stages {
					require.Len(t, st.Resupply.Points, MaxResupplyPoints)
				}
				require.False(t, after.AnalysisRunning())
			},
		},
		{name: "a resupply point of an unknown kind is refused", given: base,
			when:    result(&Resupply{SegmentM: 10000, Points: []ResupplyPoint{{Kind: "beer", Location: at}}}, nil),
			thenErr: &Error{Code: CodeInvalidArgument, Field: "resupply.points[0]"}},
		{name: "more resupply points than the contract allows are refused", given: base,
			when:    result(&Resupply{SegmentM: 10000, Points: make([]ResupplyPoint, MaxResupplyPoints+1)}, nil),
			thenErr: &Error{Code: CodeInvalidArgument, Field: "resupply"}},
		{name: "typical weather must say over how many years", given: base,
			when:    result(nil, &Weather{Typical: true, Location: at, Comfort: 50}),
			thenErr: &Error{Code: CodeInvalidArgument, Field: "weather"}},
		{name: "weather out of range is refused", given: base,
			when:    result(nil, &Weather{Location: at, Comfort: 150}),
			thenErr: &Error{Code: CodeInvalidArgument, Field: "weather.comfort"}},
	})

	t.Run("a change of the stage's content drops its resupply and weather", func(t *testing.T) {
		t.Parallel()
		done := append(append([]Event(nil), base...), history2(t, s, result(&Resupply{SegmentM: 10000, Points: []ResupplyPoint{water}}, weather))...)
		st := Load(testTripID, "", done)
		require.NotNil(t, st.Stages[1].Resupply)
		evs, err := Decide(st, UpdateSettings{Version: st.Version, Patch: SettingsPatch{DepartureHour: ptr(6)}}, testNow)
		require.NoError(t, err)
		after := applied(st, evs...)
		require.Nil(t, after.Stages[1].Resupply, "open-at-passage depends on the departure hour")
		require.Nil(t, after.Stages[1].Weather)
	})
}
