package trip

import (
	"fmt"
	"math"
	"slices"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// Resupply and weather are analysis results kept with the stage content
// they were computed for, like the alerts: StageAnalysis carries them,
// Evolve keeps them on the stage whose ContentHash they name, and normalize
// drops them when that content changes.

// ResupplyKind is what a resupply point offers: the rules' own vocabulary
// (alert.ResupplyKind), so the worker records what the rules measured
// without a second spelling.
type ResupplyKind = alert.ResupplyKind

// The resupply kinds.
const (
	ResupplyWater = alert.ResupplyWater
	ResupplyShop  = alert.ResupplyShop
	ResupplyFood  = alert.ResupplyFood
)

// OpenState says whether a resupply point is open when the rider passes
// (alert.OpenAt); the zero value is unknown.
type OpenState = alert.OpenState

// The open-at-passage states ("" is unknown).
const (
	OpenAtPassage   = alert.Open
	ClosedAtPassage = alert.Closed
)

// Bounds of one stage's resupply result (the event contract's), so one
// analysis event stays far below the store's payload limit.
const (
	MaxResupplyPoints  = 600
	MaxResupplyOmitted = 300
	// MaxResupplyTextBytes bounds a resupply point's name and opening hours.
	MaxResupplyTextBytes = 255
)

// Resupply is where a day offers water and food: the nearest few points of
// each kind in every SegmentM of the day, in route order, and how many more
// there are.
type Resupply struct {
	SegmentM float64
	Points   []ResupplyPoint
	Omitted  []ResupplyOmitted
}

// ResupplyPoint is one place along a day to refill water or buy food.
type ResupplyPoint struct {
	// Kind is ResupplyWater, ResupplyShop or ResupplyFood.
	Kind ResupplyKind
	// Name is third-party text (OSM's name tag), cleaned when recorded
	// (thirdparty.go); may be empty.
	Name     string
	Location route.Point
	// AtM is the distance along the day where the route passes it;
	// OffRouteM how far it is from the route.
	AtM, OffRouteM float64
	// OpeningHours is OSM's opening_hours when tagged (third-party text,
	// cleaned like Name).
	OpeningHours string
	// Open is OpenAtPassage, ClosedAtPassage or "" (unknown).
	Open OpenState
}

// ResupplyOmitted counts the points of one kind found in segment Segment
// (from 0) of the day but not kept.
type ResupplyOmitted struct {
	Segment int
	Kind    ResupplyKind
	Count   int
}

// Weather is a day's weather: a forecast, or (Typical) conditions typical
// of the place and date averaged over TypicalYears past years.
type Weather struct {
	Typical      bool
	TypicalYears int
	// Location is where it is for (the middle of the day's route).
	Location                              route.Point
	TempMinC, TempMaxC                    float64
	PrecipitationMM, PrecipProbabilityPct float64
	WindMaxKmh, WindFromDeg, HeadwindKmh  float64
	HumidityPct, Comfort                  float64
}

var resupplyKindPB = map[ResupplyKind]eventsv1.ResupplyKind{
	ResupplyWater: eventsv1.ResupplyKind_RESUPPLY_KIND_WATER,
	ResupplyShop:  eventsv1.ResupplyKind_RESUPPLY_KIND_SHOP,
	ResupplyFood:  eventsv1.ResupplyKind_RESUPPLY_KIND_FOOD,
}

var openPB = map[OpenState]eventsv1.OpenAtPassage{
	"":              eventsv1.OpenAtPassage_OPEN_AT_PASSAGE_UNSPECIFIED,
	OpenAtPassage:   eventsv1.OpenAtPassage_OPEN_AT_PASSAGE_OPEN,
	ClosedAtPassage: eventsv1.OpenAtPassage_OPEN_AT_PASSAGE_CLOSED,
}

// resupplyPB validates and encodes a resupply result; nil stays nil ("not
// looked").
func resupplyPB(r *Resupply) (*eventsv1.StageResupply, error) {
	if r == nil {
		return nil, nil
	}
	if !(r.SegmentM > 0) || math.IsInf(r.SegmentM, 0) {
		return nil, invalid("resupply.segmentM", "must be a finite length > 0")
	}
	if len(r.Points) > MaxResupplyPoints || len(r.Omitted) > MaxResupplyOmitted {
		return nil, invalid("resupply", "at most %d points and %d omitted counts per stage", MaxResupplyPoints, MaxResupplyOmitted)
	}
	pb := &eventsv1.StageResupply{SegmentM: r.SegmentM}
	for i, p := range r.Points {
		k, ok := resupplyKindPB[p.Kind]
		open, ok2 := openPB[p.Open]
		if !ok || !ok2 {
			return nil, invalid(fmt.Sprintf("resupply.points[%d]", i), "kind must be water, shop or food; open must be open, closed or empty")
		}
		if !finiteNonNegative(p.AtM) || !finiteNonNegative(p.OffRouteM) || !validPoint(p.Location) {
			return nil, invalid(fmt.Sprintf("resupply.points[%d]", i), "needs a valid location and finite distances >= 0")
		}
		p = p.cleaned()
		pb.Points = append(pb.Points, &eventsv1.ResupplyPoint{Kind: k, Name: capBytes(p.Name, MaxResupplyTextBytes),
			Location: pointPB(quantize(p.Location)), AtM: roundM(p.AtM), OffRouteM: roundM(p.OffRouteM),
			OpeningHours: capBytes(p.OpeningHours, MaxResupplyTextBytes), OpenAtPassage: open})
	}
	for i, o := range r.Omitted {
		k, ok := resupplyKindPB[o.Kind]
		if !ok || o.Segment < 0 || o.Count <= 0 {
			return nil, invalid(fmt.Sprintf("resupply.omitted[%d]", i), "needs a kind, a segment >= 0 and a count > 0")
		}
		pb.Omitted = append(pb.Omitted, &eventsv1.ResupplyOmitted{Segment: uint32(o.Segment), Kind: k, Count: uint32(o.Count)})
	}
	return pb, nil
}

func resupplyFrom(pb *eventsv1.StageResupply) *Resupply {
	if pb == nil {
		return nil
	}
	r := &Resupply{SegmentM: pb.GetSegmentM()}
	for _, p := range pb.GetPoints() {
		r.Points = append(r.Points, ResupplyPoint{Kind: keyOf(resupplyKindPB, p.GetKind()), Name: p.GetName(),
			Location: pointFrom(p.GetLocation()), AtM: p.GetAtM(), OffRouteM: p.GetOffRouteM(),
			OpeningHours: p.GetOpeningHours(), Open: keyOf(openPB, p.GetOpenAtPassage())})
	}
	for _, o := range pb.GetOmitted() {
		r.Omitted = append(r.Omitted, ResupplyOmitted{Segment: int(o.GetSegment()), Kind: keyOf(resupplyKindPB, o.GetKind()), Count: int(o.GetCount())})
	}
	return r
}

// weatherPB validates and encodes a day's weather; nil stays nil.
func weatherPB(w *Weather) (*eventsv1.DayWeather, error) {
	if w == nil {
		return nil, nil
	}
	for _, f := range []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"temperatureMinC", w.TempMinC, -100, 70}, {"temperatureMaxC", w.TempMaxC, -100, 70},
		{"precipitationMm", w.PrecipitationMM, 0, 2000}, {"precipitationProbabilityPct", w.PrecipProbabilityPct, 0, 100},
		{"windMaxKmh", w.WindMaxKmh, 0, 500}, {"windFromDeg", w.WindFromDeg, 0, 360}, {"headwindKmh", w.HeadwindKmh, -500, 500},
		{"humidityPct", w.HumidityPct, 0, 100}, {"comfort", w.Comfort, 0, 100},
	} {
		if math.IsNaN(f.v) || f.v < f.lo || f.v > f.hi {
			return nil, invalid("weather."+f.name, "%v is outside %v..%v", f.v, f.lo, f.hi)
		}
	}
	if !validPoint(w.Location) || w.TypicalYears < 0 || (w.Typical != (w.TypicalYears > 0)) {
		return nil, invalid("weather", "needs a valid location, and typical years exactly when typical")
	}
	src := eventsv1.WeatherSource_WEATHER_SOURCE_FORECAST
	if w.Typical {
		src = eventsv1.WeatherSource_WEATHER_SOURCE_TYPICAL
	}
	r1 := func(v float64) float64 { return math.Round(v*10) / 10 }
	return &eventsv1.DayWeather{Source: src, Location: pointPB(quantize(w.Location)),
		TemperatureMinC: r1(w.TempMinC), TemperatureMaxC: r1(w.TempMaxC), PrecipitationMm: r1(w.PrecipitationMM),
		PrecipitationProbabilityPct: r1(w.PrecipProbabilityPct), WindMaxKmh: r1(w.WindMaxKmh), WindFromDeg: r1(w.WindFromDeg),
		HeadwindKmh: r1(w.HeadwindKmh), HumidityPct: r1(w.HumidityPct), Comfort: r1(w.Comfort), TypicalYears: uint32(w.TypicalYears)}, nil
}

func weatherFrom(pb *eventsv1.DayWeather) *Weather {
	if pb == nil {
		return nil
	}
	return &Weather{Typical: pb.GetSource() == eventsv1.WeatherSource_WEATHER_SOURCE_TYPICAL, TypicalYears: int(pb.GetTypicalYears()),
		Location: pointFrom(pb.GetLocation()), TempMinC: pb.GetTemperatureMinC(), TempMaxC: pb.GetTemperatureMaxC(),
		PrecipitationMM: pb.GetPrecipitationMm(), PrecipProbabilityPct: pb.GetPrecipitationProbabilityPct(),
		WindMaxKmh: pb.GetWindMaxKmh(), WindFromDeg: pb.GetWindFromDeg(), HeadwindKmh: pb.GetHeadwindKmh(),
		HumidityPct: pb.GetHumidityPct(), Comfort: pb.GetComfort()}
}

func finiteNonNegative(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }

func validPoint(p route.Point) bool {
	return p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180
}

// clone copies the slices of a resupply result.
func (r *Resupply) clone() *Resupply {
	if r == nil {
		return nil
	}
	c := *r
	c.Points, c.Omitted = slices.Clone(r.Points), slices.Clone(r.Omitted)
	return &c
}
