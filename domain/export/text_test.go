package export_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/route"
)

// The budget rules of DOMAIN §10, restated here so the expected text is
// built from the rules rather than copied from the writer's output.
const (
	mealMin = 12
	mealMax = 20
)

func meals(n int) (lo, hi float64) { return float64(n * mealMin), float64(n * mealMax) }

func TestWriteText(t *testing.T) {
	t.Parallel()

	t.Run("a multi-day trip has a line per day with meals and accommodation budgeted", func(t *testing.T) {
		t.Parallel()
		alpha := &export.Accommodation{Name: "Hotel Alpha", Type: "hotel", Lat: 60, Lon: 10, PriceMinEUR: 50, PriceMaxEUR: 120}
		camp := &export.Accommodation{Name: "Camping Beta", Type: "camp_site", Lat: 61, Lon: 10, PriceMinEUR: 8, PriceMaxEUR: 15}
		trip := export.Trip{
			Title:     "Oslo – Trondheim",
			SourceURL: "https://www.komoot.com/tour/42",
			Stages: []export.Stage{
				{Date: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), DistanceM: 82449, AscentM: 1234.4, DescentM: 987.6, Accommodation: alpha},
				{Date: time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC), RestDay: true, Accommodation: alpha},
				{DistanceM: 75000, AscentM: 640, DescentM: 702.5},
				{DistanceM: 61230, AscentM: 410.6, DescentM: 390, Accommodation: camp},
				{DistanceM: 40050, AscentM: 120, DescentM: 300, Accommodation: camp},
			},
		}

		// Day 1: first day, 2 meals + hotel. Day 2: rest day, 3 meals + hotel.
		// Day 3: 3 meals, nothing chosen. Day 4: 3 meals + camp site.
		// Day 5: last day, 2 meals, no accommodation even though one is set.
		type day struct {
			lo, hi float64
		}
		d1lo, d1hi := meals(2)
		d2lo, d2hi := meals(3)
		d3lo, d3hi := meals(3)
		d4lo, d4hi := meals(3)
		d5lo, d5hi := meals(2)
		days := []day{{d1lo + 50, d1hi + 120}, {d2lo + 50, d2hi + 120}, {d3lo, d3hi}, {d4lo + 8, d4hi + 15}, {d5lo, d5hi}}
		var sumLo, sumHi float64
		for _, d := range days {
			sumLo += d.lo
			sumHi += d.hi
		}
		eur := func(d day) string { return fmt.Sprintf("%.0f–%.0f €", d.lo, d.hi) }
		want := strings.Join([]string{
			"Oslo – Trondheim",
			"Total: 258.7 km, ↑2405 m ↓2380 m", // 258.729 km; 2405.0 m; 2380.1 m
			"Source: https://www.komoot.com/tour/42",
			"",
			"2025-06-01: 82.4 km, ↑1234 m ↓988 m, Hotel Alpha, " + eur(days[0]),
			"  Weather: not available",
			"2025-06-02: rest day, Hotel Alpha, " + eur(days[1]),
			"  Weather: not available",
			"Day 3: 75.0 km, ↑640 m ↓703 m, no accommodation chosen, " + eur(days[2]), // 702.5 rounds half away from zero
			"Day 4: 61.2 km, ↑411 m ↓390 m, Camping Beta, " + eur(days[3]),
			"Day 5: 40.0 km, ↑120 m ↓300 m, no accommodation (last day), " + eur(days[4]),
			"",
			"Budget: " + eur(day{sumLo, sumHi}),
			"",
		}, "\n")

		var buf bytes.Buffer
		require.NoError(t, export.WriteText(&buf, trip))
		require.Equal(t, want, buf.String())
	})

	t.Run("a single-day trip budgets one meal and no night", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{Stages: []export.Stage{{DistanceM: 10000, Accommodation: &export.Accommodation{Name: "X", PriceMinEUR: 30, PriceMaxEUR: 30}}}}
		lo, hi := meals(1)
		want := fmt.Sprintf("Untitled trip\nTotal: 10.0 km, ↑0 m ↓0 m\nSource: uploaded file\nWeather: the trip has no dates, so there is no forecast\n\n"+
			"Day 1: 10.0 km, ↑0 m ↓0 m, no accommodation (last day), %.0f–%.0f €\n\nBudget: %.0f–%.0f €\n", lo, hi, lo, hi)
		var buf bytes.Buffer
		require.NoError(t, export.WriteText(&buf, trip))
		require.Equal(t, want, buf.String())
	})

	t.Run("unknown elevation is said rather than written as 0 m", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{Title: "Flat?", Stages: []export.Stage{
			{DistanceM: 50000, AscentM: 300, DescentM: 200},
			{DistanceM: 60000, ElevationUnknown: true},
		}}
		lo, hi := meals(2)
		want := strings.Join([]string{
			"Flat?",
			"Total: 110.0 km, elevation unknown",
			"Source: uploaded file",
			"Weather: the trip has no dates, so there is no forecast",
			"",
			fmt.Sprintf("Day 1: 50.0 km, ↑300 m ↓200 m, no accommodation chosen, %.0f–%.0f €", lo, hi),
			fmt.Sprintf("Day 2: 60.0 km, elevation unknown, no accommodation (last day), %.0f–%.0f €", lo, hi),
			"",
			fmt.Sprintf("Budget: %.0f–%.0f €", 2*lo, 2*hi),
			"",
		}, "\n")
		var buf bytes.Buffer
		require.NoError(t, export.WriteText(&buf, trip))
		require.Equal(t, want, buf.String())
	})

	t.Run("fractional prices are written with cents", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{Title: "T", Stages: []export.Stage{
			{DistanceM: 1000, Accommodation: &export.Accommodation{Name: "Hut", PriceMinEUR: 12.5, PriceMaxEUR: 37.25}},
			{DistanceM: 1000},
		}}
		lo, hi := meals(2)
		var buf bytes.Buffer
		require.NoError(t, export.WriteText(&buf, trip))
		require.Contains(t, buf.String(), fmt.Sprintf("Day 1: 1.0 km, ↑0 m ↓0 m, Hut, %.2f–%.2f €\n", lo+12.5, hi+37.25))
		require.Contains(t, buf.String(), fmt.Sprintf("Budget: %.2f–%.2f €\n", 2*lo+12.5, 2*hi+37.25))
	})

	t.Run("third-party text cannot add lines", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{Title: "Trip\nBudget: 0–0 €", Stages: []export.Stage{
			{DistanceM: 1000, Accommodation: &export.Accommodation{Name: "Inn\r\nDay 9: forged"}},
			{DistanceM: 1000},
		}}
		var buf bytes.Buffer
		require.NoError(t, export.WriteText(&buf, trip))
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		require.Len(t, lines, 9)
		require.Equal(t, "Trip Budget: 0–0 €", lines[0])
		require.True(t, strings.HasPrefix(lines[5], "Day 1: 1.0 km, ↑0 m ↓0 m, Inn  Day 9: forged, "), lines[5])
	})

	t.Run("each day lists its weather and its resupply points by kind in route order", func(t *testing.T) {
		t.Parallel()
		day := time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC)
		trip := export.Trip{Title: "T", Stages: []export.Stage{
			{Date: day, DistanceM: 80000, ResupplyChecked: true,
				Weather: &export.Weather{TempMinC: 8.4, TempMaxC: 17.2, PrecipitationMM: 2.46, WindKmh: 24.6, HeadwindKmh: 18.2, Comfort: 93.1},
				Resupply: []export.Resupply{
					{Kind: export.ResupplyWater, AtM: 12340},
					{Kind: export.ResupplyShop, Name: "Coop\nExtra", AtM: 20000, Open: "closed", OpeningHours: "Mo-Sa 08:00-20:00"},
					{Kind: export.ResupplyFood, Name: "Kafé", AtM: 33050, Open: "open"},
					{Kind: export.ResupplyWater, Name: "Fontene", AtM: 40100},
				}},
			{Date: day.AddDate(0, 0, 1), DistanceM: 50000, ResupplyChecked: true,
				Weather: &export.Weather{Typical: true, TempMinC: -4.2, TempMaxC: 1.6, PrecipitationMM: 1.2, WindKmh: 14, HeadwindKmh: -6.4, Comfort: 100}},
			{Date: day.AddDate(0, 0, 2), DistanceM: 40000},
		}}
		var buf bytes.Buffer
		require.NoError(t, export.WriteText(&buf, trip))
		lines := strings.Split(buf.String(), "\n")
		require.Equal(t, []string{
			"2026-05-17: 80.0 km, ↑0 m ↓0 m, no accommodation chosen, 24–40 €",
			"  Weather (forecast): 8–17 °C, 2.5 mm, wind 25 km/h (headwind 18 km/h), comfort 93/100",
			"  Water: km 12.3 · km 40.1 Fontene",
			"  Food shops: km 20.0 Coop Extra (closed when you pass)",
			"  Cafés and restaurants: km 33.0 Kafé (open when you pass)",
			"2026-05-18: 50.0 km, ↑0 m ↓0 m, no accommodation chosen, 36–60 €",
			"  Weather (typical for the date): -4 to 2 °C, 1.2 mm, wind 14 km/h (tailwind 6 km/h), comfort 100/100",
			"  Resupply: none found within 500 m of the route",
			"2026-05-19: 40.0 km, ↑0 m ↓0 m, no accommodation (last day), 24–40 €",
			"  Weather: not available",
		}, lines[4:14])
	})

	t.Run("a long list of one kind is cut and counted", func(t *testing.T) {
		t.Parallel()
		var rs []export.Resupply
		for i := range export.MaxTextResupplyPerKind + 3 {
			rs = append(rs, export.Resupply{Kind: export.ResupplyWater, AtM: float64(i) * 1000})
		}
		trip := export.Trip{Stages: []export.Stage{{DistanceM: 20000, Resupply: rs}}}
		var buf bytes.Buffer
		require.NoError(t, export.WriteText(&buf, trip))
		require.Contains(t, buf.String(), "km 7.0 and 3 more\n")
		require.NotContains(t, buf.String(), "km 8.0")
	})

	t.Run("each day says where it goes, the top it climbs to and the rider's own points", func(t *testing.T) {
		t.Parallel()
		// Points 0.01° apart on the equator's meridian: 1,105.7 m each
		// (the meridian's degree there is 110,574 m).
		climb := func(eles ...float64) []route.Point {
			var pts []route.Point
			for i, e := range eles {
				pts = append(pts, route.Point{Lat: float64(i) * 0.01, Lon: 0, Ele: e, HasEle: true})
			}
			return pts
		}
		trip := export.Trip{Stages: []export.Stage{
			// A pass at the third point (km 2.2), 600 m above the day's end.
			{Label: "Maslianico → Bodio", DistanceM: 4423, AscentM: 900, DescentM: 600, Points: climb(500, 900, 1400, 1100, 800),
				// Given out of route order: the text puts them in it.
				Waypoints: []export.Waypoint{{Name: "Camp", Lat: 0.03, Lon: 0.0001}, {Name: "Spring", Category: "water", Lat: 0.01, Lon: 0.0002}}},
			{RestDay: true, Label: "Bodio → Bodio", EndLabel: "Bodio", Waypoints: []export.Waypoint{{Name: "Bike\nshop", Category: "repair", Lat: 0.04}}},
			// Climbs all day to its end: no top short of it.
			{Label: "Bodio\nDay 9: forged → Airolo", DistanceM: 3317, AscentM: 900, Points: climb(800, 1100, 1400, 1700)},
			// Rolls 100 m over its ends: not a climb worth a mark.
			{Label: "Airolo → Andermatt", DistanceM: 2211, AscentM: 100, DescentM: 100, Points: climb(1700, 1800, 1700)},
		}}
		var buf bytes.Buffer
		require.NoError(t, export.WriteText(&buf, trip))
		lines := strings.Split(buf.String(), "\n")
		require.Equal(t, []string{
			"Day 1: 4.4 km, ↑900 m ↓600 m, no accommodation chosen, 24–40 €",
			"  Maslianico → Bodio",
			"  Highest point: 1400 m at km 2.2",
			"  Your waypoints: km 1.1 Spring (water) · km 3.3 Camp",
			"Day 2: rest day, no accommodation chosen, 36–60 €",
			"  Bodio",
			"  Your waypoints: Bike shop (repair)",
			"Day 3: 3.3 km, ↑900 m ↓0 m, no accommodation chosen, 36–60 €",
			"  Bodio Day 9: forged → Airolo",
			"Day 4: 2.2 km, ↑100 m ↓100 m, no accommodation (last day), 24–40 €",
			"  Airolo → Andermatt",
		}, lines[5:16])

		unknown := trip
		unknown.Stages = []export.Stage{trip.Stages[0]}
		unknown.Stages[0].ElevationUnknown = true
		buf.Reset()
		require.NoError(t, export.WriteText(&buf, unknown))
		require.NotContains(t, buf.String(), "Highest point", "a route without elevation has no top to name")
	})

	t.Run("a trip without stages is refused", func(t *testing.T) {
		t.Parallel()
		require.ErrorIs(t, export.WriteText(&bytes.Buffer{}, export.Trip{Title: "empty"}), export.ErrNoStages)
	})

	t.Run("a negative price is refused with its field named", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{Stages: []export.Stage{{Accommodation: &export.Accommodation{PriceMinEUR: -1}}}}
		err := export.WriteText(&bytes.Buffer{}, trip)
		require.ErrorIs(t, err, export.ErrInvalidInput)
		require.ErrorContains(t, err, "stages[0].accommodation.price_min_eur")
	})
}

func TestWriteStageText(t *testing.T) {
	t.Parallel()

	day := time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC)
	hut := &export.Accommodation{Name: "Rifugio\nAlpe", PriceMinEUR: 40, PriceMaxEUR: 55}
	dated := export.Trip{Title: "Passi", SourceURL: "https://www.komoot.com/tour/42", Stages: []export.Stage{
		{Date: day, DistanceM: 82000, AscentM: 1707, DescentM: 1511, Accommodation: hut},
		{Date: day.AddDate(0, 0, 1), DistanceM: 46200, AscentM: 2757, DescentM: 919, ResupplyChecked: true, Accommodation: hut,
			Weather:  &export.Weather{TempMinC: 2.4, TempMaxC: 11.2, PrecipitationMM: 0.4, WindKmh: 18, HeadwindKmh: 9.6, Comfort: 71},
			Resupply: []export.Resupply{{Kind: export.ResupplyWater, Name: "Fontana", AtM: 31400}}},
		{Date: day.AddDate(0, 0, 2), RestDay: true, Accommodation: hut},
		{Date: day.AddDate(0, 0, 3), DistanceM: 48000, AscentM: 3347, DescentM: 4023},
	}}

	t.Run("a day's text is its line and details under the trip's title, the day's place and the source", func(t *testing.T) {
		t.Parallel()
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageText(&buf, dated, 1))
		lo, hi := meals(3)
		require.Equal(t, strings.Join([]string{
			"Passi · Day 2 of 4",
			"Source: https://www.komoot.com/tour/42",
			"",
			fmt.Sprintf("2026-05-18: 46.2 km, ↑2757 m ↓919 m, Rifugio Alpe, %.0f–%.0f €", lo+40, hi+55),
			"  Weather (forecast): 2–11 °C, 0.4 mm, wind 18 km/h (headwind 10 km/h), comfort 71/100",
			"  Water: km 31.4 Fontana",
			"",
		}, "\n"), buf.String())
	})

	t.Run("every day's text says what the whole roadbook says of that day", func(t *testing.T) {
		t.Parallel()
		var whole bytes.Buffer
		require.NoError(t, export.WriteText(&whole, dated))
		for i := range dated.Stages {
			var one bytes.Buffer
			require.NoError(t, export.WriteStageText(&one, dated, i))
			_, block, found := strings.Cut(one.String(), "\n\n")
			require.True(t, found, "day %d has a header and a blank line", i+1)
			require.Contains(t, whole.String(), "\n"+block, "day %d", i+1)
			require.NotContains(t, one.String(), "Budget:", "day %d: its line carries its budget", i+1)
		}
	})

	t.Run("a day of an undated trip says once that there is no forecast", func(t *testing.T) {
		t.Parallel()
		trip := export.Trip{Stages: []export.Stage{{DistanceM: 50000, AscentM: 300, DescentM: 200}, {DistanceM: 60000}}}
		var buf bytes.Buffer
		require.NoError(t, export.WriteStageText(&buf, trip, 1))
		lo, hi := meals(2)
		require.Equal(t, fmt.Sprintf("Untitled trip · Day 2 of 2\nSource: uploaded file\n"+
			"Weather: the trip has no dates, so there is no forecast\n\n"+
			"Day 2: 60.0 km, ↑0 m ↓0 m, no accommodation (last day), %.0f–%.0f €\n", lo, hi), buf.String())
	})

	t.Run("a position outside the trip and a trip without stages are refused", func(t *testing.T) {
		t.Parallel()
		for _, i := range []int{-1, 4} {
			err := export.WriteStageText(&bytes.Buffer{}, dated, i)
			require.ErrorIs(t, err, export.ErrNoSuchStage, "position %d", i)
			require.ErrorContains(t, err, "the trip has 4 stages")
		}
		require.ErrorIs(t, export.WriteStageText(&bytes.Buffer{}, export.Trip{}, 0), export.ErrNoStages)
	})
}
