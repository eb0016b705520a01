package apiserver

import (
	"math"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

var resupplyKinds = map[trip.ResupplyKind]roadbookv1.ResupplyKind{
	trip.ResupplyWater: roadbookv1.ResupplyKind_RESUPPLY_KIND_WATER,
	trip.ResupplyShop:  roadbookv1.ResupplyKind_RESUPPLY_KIND_SHOP,
	trip.ResupplyFood:  roadbookv1.ResupplyKind_RESUPPLY_KIND_FOOD,
}

var openAtPassage = map[trip.OpenState]roadbookv1.OpenAtPassage{
	trip.OpenAtPassage:   roadbookv1.OpenAtPassage_OPEN_AT_PASSAGE_OPEN,
	trip.ClosedAtPassage: roadbookv1.OpenAtPassage_OPEN_AT_PASSAGE_CLOSED,
}

// stageResupplyPB is a stage's resupply points as GetStage shows them, each
// with the minute the rider passes it on the day's schedule rt (the one
// riderTime shows: alert.RiderTime.PassageMinute); nil until the analysis
// looked.
func stageResupplyPB(st trip.Stage, rt alert.RiderTime) *roadbookv1.StageResupply {
	r := st.Resupply
	if r == nil {
		return nil
	}
	out := &roadbookv1.StageResupply{SegmentM: r.SegmentM}
	for _, p := range r.Points {
		out.Points = append(out.Points, &roadbookv1.ResupplyPoint{Kind: resupplyKinds[p.Kind], Name: p.Name,
			Location: latLon(p.Location), AtM: p.AtM, OffRouteM: p.OffRouteM, OpeningHours: p.OpeningHours,
			OpenAtPassage:      openAtPassage[p.Open],
			PassageMinuteOfDay: uint32(rt.PassageMinute(p.AtM))})
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
