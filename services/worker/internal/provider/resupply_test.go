package provider_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/services/worker/internal/provider"
)

// resupplyRun analyses one dated 80 km stage (Monday 18 May 2026, leaving
// at 08:00 at 20 km/h on the flat) against a fake Overpass answering els.
func resupplyRun(t *testing.T, els []element, holiday bool) (provider.StageResupply, []alert.Alert) {
	t.Helper()
	var f fixedOverpass
	op, err := provider.NewOverpass(client(t, "overpass", f.serve(t, els, nil).URL))
	require.NoError(t, err)
	s := stageOf(80)
	s.Date = time.Date(2026, 5, 18, 0, 0, 0, 0, time.UTC)
	set := alert.DefaultSettings()
	set.AverageSpeedKmh, set.DepartureHour = 20, 8
	s.Rider = alert.EstimateRiderTime(alert.Stage{Index: s.Index, Start: s.Start, End: s.End, DistanceM: 80000, Points: s.Points}, set)
	a := &provider.Analyzer{Overpass: op, SkipAccommodations: true, Holiday: func(_, _ float64, _ time.Time) bool { return holiday }}
	res, err := a.Analyze(context.Background(), []provider.Stage{s})
	require.NoError(t, err)
	return res.Resupply[0], res.Alerts
}

func TestResupplyPoints(t *testing.T) {
	t.Parallel()

	t.Run("water, springs, shops and cafés within 500 m are listed along the day with their hours", func(t *testing.T) {
		t.Parallel()
		rs, _ := resupplyRun(t, []element{
			node(1, east(km(12), 40), map[string]string{"amenity": "drinking_water", "name": "Fontene"}),
			node(2, east(km(14), 300), map[string]string{"natural": "spring"}),
			node(3, east(km(16), 200), map[string]string{"natural": "spring", "drinking_water": "no"}),
			node(4, east(km(20), 100), map[string]string{"shop": "supermarket", "name": "Coop Extra", "opening_hours": "Mo-Fr 07:00-23:00; Sa 08:00-20:00"}),
			{"type": "way", "id": 5, "center": map[string]float64{"lat": east(km(40), 150).Lat, "lon": east(km(40), 150).Lon},
				"tags": map[string]string{"amenity": "cafe", "name": "Kafé Elv", "opening_hours": "Mo-Fr 10:00-12:00"}},
			node(6, east(km(42), 700), map[string]string{"shop": "bakery", "name": "Too far"}),
			node(7, east(km(50), 50), map[string]string{"shop": "bicycle"}),
		}, false)
		type got struct {
			kind alert.ResupplyKind
			name string
			km   float64
			open alert.OpenState
		}
		var list []got
		for _, p := range rs.Points {
			list = append(list, got{p.Kind, p.Name, math.Round(p.AtM / 1000), p.Open})
		}
		// 80 km at 20 km/h from 08:00 is 4 h riding and 20 min of breaks
		// spread along the day (no lunch: the ride ends at noon): the rider
		// is at km 20 at 09:05 (the shop is open) and km 40 at 10:10 (the
		// café opened at 10:00).
		require.Equal(t, []got{
			{alert.ResupplyWater, "Fontene", 12, ""},
			{alert.ResupplyWater, "Spring", 14, ""},
			{alert.ResupplyShop, "Coop Extra", 20, alert.Open},
			{alert.ResupplyFood, "Kafé Elv", 40, alert.Open},
		}, list)
		require.Equal(t, "Mo-Fr 07:00-23:00; Sa 08:00-20:00", rs.Points[2].OpeningHours)
		require.InDelta(t, 100, rs.Points[2].OffRouteM, 2)
	})

	t.Run("only the nearest two of a kind per 10 km are kept, the rest counted", func(t *testing.T) {
		t.Parallel()
		var els []element
		for i := range 6 {
			els = append(els, node(int64(i+1), east(km(41+float64(i)), float64(50*(i+1))), map[string]string{"amenity": "drinking_water"}))
		}
		rs, _ := resupplyRun(t, els, false)
		require.Len(t, rs.Points, 2)
		require.InDelta(t, 41, rs.Points[0].AtM/1000, 0.1)
		require.InDelta(t, 42, rs.Points[1].AtM/1000, 0.1)
		require.Equal(t, []alert.ResupplyOmitted{{Segment: 4, Kind: alert.ResupplyWater, Count: 4}}, rs.Omitted)
	})

	t.Run("a shop closed on a holiday is closed when the rider passes", func(t *testing.T) {
		t.Parallel()
		els := []element{node(1, east(km(20), 100), map[string]string{"shop": "supermarket", "name": "Coop", "opening_hours": "Mo-Sa 08:00-20:00; PH off"})}
		rs, _ := resupplyRun(t, els, true)
		require.Equal(t, alert.Closed, rs.Points[0].Open)
		rs, _ = resupplyRun(t, els, false)
		require.Equal(t, alert.Open, rs.Points[0].Open)
	})

	t.Run("a gap names where it starts and ends", func(t *testing.T) {
		t.Parallel()
		_, alerts := resupplyRun(t, []element{
			node(1, east(km(10), 100), map[string]string{"shop": "supermarket", "name": "Rema 1000"}),
			node(2, east(km(50), 100), map[string]string{"shop": "convenience", "name": "Joker"}),
			node(3, east(km(70), 100), map[string]string{"shop": "bakery"}),
		}, false)
		gaps := withCode(alerts, alert.CodeResupplyGap)
		require.Len(t, gaps, 1)
		// (the fixture's km are 0.2 % short of true kilometres)
		require.Regexp(t, `for 39\.9 km \(more than 30 km\): from km 10\.0 \(Rema 1000\) to km 49\.9 \(Joker\)\.$`, gaps[0].Message)
		require.InDelta(t, 10, gaps[0].Metrics["from_km"], 0.1)
		require.InDelta(t, 50, gaps[0].Metrics["to_km"], 0.15)
		water := withCode(alerts, alert.CodeWaterGap)
		require.Len(t, water, 1, "the shops are the only water")
		require.Contains(t, water[0].Message, "from km 10.0 (Rema 1000) to km 49.9 (Joker)")
	})

	t.Run("a gap from the start says so", func(t *testing.T) {
		t.Parallel()
		_, alerts := resupplyRun(t, []element{node(1, east(km(45), 100), map[string]string{"amenity": "drinking_water"}),
			node(2, east(km(60), 100), map[string]string{"shop": "general"})}, false)
		water := withCode(alerts, alert.CodeWaterGap)
		require.Len(t, water, 1)
		require.Regexp(t, `for 44\.\d km \(more than 30 km\): from the start to km 44\.\d\.$`, water[0].Message)
	})

	// resupply_closed_at_passage: both sides of its threshold.
	shops := func(hours string) []element {
		return []element{
			node(1, east(km(5), 100), map[string]string{"shop": "supermarket", "name": "Kiwi"}),
			node(2, east(km(25), 100), map[string]string{"shop": "supermarket", "name": "Coop", "opening_hours": hours}),
			node(3, east(km(45), 100), map[string]string{"shop": "convenience", "name": "Joker"}),
			node(4, east(km(70), 100), map[string]string{"shop": "bakery", "name": "Baker"}),
		}
	}
	t.Run("a shop closed when the rider passes that leaves 40 km with none open raises resupply_closed_at_passage", func(t *testing.T) {
		t.Parallel()
		_, alerts := resupplyRun(t, shops("Mo-Fr 16:00-20:00"), false)
		require.Empty(t, withCode(alerts, alert.CodeResupplyGap), "every gap between shops is 25 km at most")
		closed := withCode(alerts, alert.CodeResupplyClosedAtPassage)
		require.Len(t, closed, 1)
		require.Equal(t, alert.SeverityWarning, closed[0].Severity)
		require.InDelta(t, 40, closed[0].Value, 0.2)
		require.Contains(t, closed[0].Message, "from km 5.0 (Kiwi) to km 44.9 (Joker) (closed then: Coop at km 25.0)")
	})
	t.Run("the same shop open when the rider passes raises nothing", func(t *testing.T) {
		t.Parallel()
		_, alerts := resupplyRun(t, shops("Mo-Fr 08:00-20:00"), false)
		require.Empty(t, withCode(alerts, alert.CodeResupplyClosedAtPassage))
	})
	t.Run("a closed shop that leaves only 30 km with none open raises nothing", func(t *testing.T) {
		t.Parallel()
		els := shops("Mo-Fr 16:00-20:00")
		els[2] = node(3, east(km(35), 100), map[string]string{"shop": "convenience", "name": "Joker"})
		_, alerts := resupplyRun(t, els, false)
		require.Empty(t, withCode(alerts, alert.CodeResupplyClosedAtPassage))
	})
}
