package stack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

// TestResupplyAndWeatherOnlyInGetStage records, for every day of a 31-day
// trip, an analysis result with resupply points and the weather (as the
// analysis worker does), then reads it as an agent: get_stage shows them,
// the digest stays within its budget of 400 bytes a day.
func TestResupplyAndWeatherOnlyInGetStage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "res", nil)
	c := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t),
		"settings": map[string]any{"startDate": "2030-06-01", "endDate": "2030-07-01"}}))
	id := c["tripId"].(string)
	h.recordStages(t, id)

	ctx := context.Background()
	tid := uuid.MustParse(id)
	l, err := h.trips.Load(ctx, tripstore.System(), tid)
	require.NoError(t, err)
	a := l.State.Analyses[len(l.State.Analyses)-1]
	var stages []trip.StageAnalysis
	for i, ref := range a.Stages {
		st := l.State.Stages[ref.Index]
		r := &trip.Resupply{SegmentM: 10000, Omitted: []trip.ResupplyOmitted{{Segment: 0, Kind: trip.ResupplyWater, Count: 4}}}
		for k := 0; float64(k)*2000 < st.DistanceM; k++ {
			r.Points = append(r.Points, trip.ResupplyPoint{Kind: []trip.ResupplyKind{trip.ResupplyWater, trip.ResupplyShop, trip.ResupplyFood}[k%3],
				Name: fmt.Sprintf("Point %d", k), Location: route.Point{Lat: st.Start.Lat, Lon: st.Start.Lon}, AtM: float64(k) * 2000, OffRouteM: 120,
				OpeningHours: "Mo-Sa 08:00-20:00", Open: trip.OpenAtPassage})
		}
		w := &trip.Weather{Location: st.End, TempMinC: 9, TempMaxC: 18, PrecipitationMM: 1.5, PrecipProbabilityPct: 40,
			WindMaxKmh: 22, WindFromDeg: 10, HeadwindKmh: 21.7, HumidityPct: 70, Comfort: 84}
		if i > 15 {
			w.Typical, w.TypicalYears = true, 5
		}
		stages = append(stages, trip.StageAnalysis{Stage: ref, Families: map[trip.Family]trip.Availability{
			trip.FamilyGeometry: trip.Available, trip.FamilyResupply: trip.Available, trip.FamilyWeather: trip.Available},
			Resupply: r, Weather: w})
	}
	_, err = h.trips.Execute(ctx, tripstore.System(), tid, trip.RecordAnalysis{AnalysisID: a.ID, Stages: stages, Final: true}, tripstore.Options{})
	require.NoError(t, err)

	st := ok(t, s, "get_stage", fmt.Sprintf(`{"tripId":%q,"stageIndex":0}`, id))
	res := st["resupply"].(map[string]any)
	require.EqualValues(t, 10, res["segmentKm"])
	pts := res["points"].([]any)
	require.NotEmpty(t, pts)
	first := pts[0].(map[string]any)
	require.Equal(t, "water", first["kind"])
	require.Equal(t, "Point 0", first["name"])
	require.Equal(t, "open", first["openWhenPassing"])
	require.Equal(t, "08:00", first["passage"], "km 0 is passed at the departure hour")
	require.Equal(t, []any{map[string]any{"fromKm": 0.0, "toKm": 10.0, "kind": "water", "count": 4.0}}, res["more"])
	require.Equal(t, "forecast", st["weather"].(map[string]any)["kind"])
	late := ok(t, s, "get_stage", fmt.Sprintf(`{"tripId":%q,"stageIndex":20}`, id))
	require.Equal(t, "typical", late["weather"].(map[string]any)["kind"])
	require.EqualValues(t, 5, late["weather"].(map[string]any)["typicalYears"])

	r := call(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
	require.False(t, r.IsError, r.Text)
	var d struct {
		Stages []json.RawMessage `json:"stages"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Text), &d))
	require.Len(t, d.Stages, 31)
	require.NotContains(t, r.Text, "Point 0", "resupply points live in get_stage, not the digest")
	require.LessOrEqual(t, len(r.Text), 400*len(d.Stages), "the digest stays within 400 bytes a day (got %d bytes)", len(r.Text))
	one := call(t, s, "get_stage", fmt.Sprintf(`{"tripId":%q,"stageIndex":0}`, id))
	t.Logf("31-day digest with resupply and weather recorded: %d bytes (%d B/day); get_stage of day 1: %d bytes",
		len(r.Text), len(r.Text)/len(d.Stages), len(one.Text))
}
