package apiserver

import (
	"fmt"
	"math"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/export"
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

var resupplyKinds = map[string]roadbookv1.ResupplyKind{
	trip.ResupplyWater: roadbookv1.ResupplyKind_RESUPPLY_KIND_WATER,
	trip.ResupplyShop:  roadbookv1.ResupplyKind_RESUPPLY_KIND_SHOP,
	trip.ResupplyFood:  roadbookv1.ResupplyKind_RESUPPLY_KIND_FOOD,
}

var openAtPassage = map[string]roadbookv1.OpenAtPassage{
	trip.OpenAtPassage:   roadbookv1.OpenAtPassage_OPEN_AT_PASSAGE_OPEN,
	trip.ClosedAtPassage: roadbookv1.OpenAtPassage_OPEN_AT_PASSAGE_CLOSED,
}

// stageResupplyPB is a stage's resupply points as GetStage shows them, each
// with the minute the rider passes it by the same rider-time rule as the
// day's schedule (riderTime); nil until the analysis looked.
func stageResupplyPB(st trip.Stage, set trip.Settings) *roadbookv1.StageResupply {
	r := st.Resupply
	if r == nil {
		return nil
	}
	rt := alert.EstimateRiderTime(st.DistanceM/1000, st.AscentM, set.AverageSpeedKmH, set.DepartureHour)
	out := &roadbookv1.StageResupply{SegmentM: r.SegmentM}
	for _, p := range r.Points {
		out.Points = append(out.Points, &roadbookv1.ResupplyPoint{Kind: resupplyKinds[p.Kind], Name: p.Name,
			Location: latLon(p.Location), AtM: p.AtM, OffRouteM: p.OffRouteM, OpeningHours: p.OpeningHours,
			OpenAtPassage:      openAtPassage[p.Open],
			PassageMinuteOfDay: uint32(math.Round(rt.HourAt(math.Min(p.AtM, st.DistanceM)/1000) * 60))})
	}
	for _, o := range r.Omitted {
		from := float64(o.Segment) * r.SegmentM
		out.Omitted = append(out.Omitted, &roadbookv1.ResupplyOmitted{FromM: from, ToM: math.Min(from+r.SegmentM, math.Max(from, st.DistanceM)),
			Kind: resupplyKinds[o.Kind], Count: uint32(o.Count)})
	}
	return out
}

// dayWeatherPB is a stage's weather as GetStage shows it; nil when none.
func dayWeatherPB(w *trip.Weather) *roadbookv1.DayWeather {
	if w == nil {
		return nil
	}
	src := roadbookv1.WeatherSource_WEATHER_SOURCE_FORECAST
	if w.Typical {
		src = roadbookv1.WeatherSource_WEATHER_SOURCE_TYPICAL
	}
	return &roadbookv1.DayWeather{Source: src, Location: latLon(w.Location), TemperatureMinC: w.TempMinC, TemperatureMaxC: w.TempMaxC,
		PrecipitationMm: w.PrecipitationMM, PrecipitationProbabilityPct: w.PrecipProbabilityPct, WindMaxKmh: w.WindMaxKmh,
		WindFromDeg: w.WindFromDeg, HeadwindKmh: w.HeadwindKmh, HumidityPct: w.HumidityPct, Comfort: w.Comfort,
		TypicalYears: uint32(w.TypicalYears)}
}

// exportResupply is a stage's resupply points in the export package's
// shape, each with the rider's time of passage on a dated day.
func exportResupply(st trip.Stage, set trip.Settings) []export.Resupply {
	if st.Resupply == nil {
		return nil
	}
	rt := alert.EstimateRiderTime(st.DistanceM/1000, st.AscentM, set.AverageSpeedKmH, set.DepartureHour)
	out := make([]export.Resupply, 0, len(st.Resupply.Points))
	for _, p := range st.Resupply.Points {
		r := export.Resupply{Kind: export.ResupplyKind(p.Kind), Name: p.Name, Lat: p.Location.Lat, Lon: p.Location.Lon,
			AtM: p.AtM, OpeningHours: p.OpeningHours, Open: p.Open}
		if !st.Date.IsZero() {
			m := int(math.Round(rt.HourAt(math.Min(p.AtM, st.DistanceM)/1000) * 60))
			r.PassAt = fmt.Sprintf("%02d:%02d", m/60%24, m%60)
		}
		out = append(out, r)
	}
	return out
}

// exportWeather is a stage's weather in the export package's shape.
func exportWeather(w *trip.Weather) *export.Weather {
	if w == nil {
		return nil
	}
	return &export.Weather{Typical: w.Typical, TempMinC: w.TempMinC, TempMaxC: w.TempMaxC, PrecipitationMM: w.PrecipitationMM,
		WindKmh: w.WindMaxKmh, HeadwindKmh: w.HeadwindKmh, Comfort: w.Comfort}
}
