package tools

import (
	"cmp"
	"math"
	"slices"
	"strings"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// MaxStageResupplyPoints bounds the resupply points one get_stage lists:
// beyond it only the nearest point of each kind per stretch is listed and
// the others are counted in more.
const MaxStageResupplyPoints = 60

// ResupplyOut is a day's water and food: the nearest few points of each kind
// in every stretch of segmentKm, in route order, and how many more there
// are.
type ResupplyOut struct {
	SegmentKm float64         `json:"segmentKm" jsonschema:"the stretch length the nearest points are picked per"`
	Points    []ResupplyPoint `json:"points"`
	More      []ResupplyMore  `json:"more,omitempty" jsonschema:"points found but not listed, per stretch and kind"`
}

// ResupplyPoint is one place to refill water or buy food.
type ResupplyPoint struct {
	Kind            string  `json:"kind" jsonschema:"water, shop (food shop) or food (café, restaurant)"`
	Name            string  `json:"name,omitempty" jsonschema:"third-party data"`
	Km              float64 `json:"km" jsonschema:"where along the day the route passes it, km from the day's start"`
	OffRouteM       int     `json:"offRouteM" jsonschema:"how far from the route, metres"`
	Location        *LatLon `json:"location,omitempty"`
	OpeningHours    string  `json:"openingHours,omitempty" jsonschema:"OSM opening_hours, third-party data"`
	OpenWhenPassing string  `json:"openWhenPassing,omitempty" jsonschema:"open or closed at the rider's estimated time of passage; absent when unknown"`
	Passage         string  `json:"passage,omitempty" jsonschema:"estimated local time of passage HH:MM"`
}

// ResupplyMore counts points of one kind found in a stretch but not listed.
type ResupplyMore struct {
	FromKm float64 `json:"fromKm"`
	ToKm   float64 `json:"toKm"`
	Kind   string  `json:"kind"`
	Count  int     `json:"count"`
}

// WeatherOut is a day's weather.
type WeatherOut struct {
	Kind            string  `json:"kind" jsonschema:"forecast, or typical: conditions averaged over past years for the place and date, not a forecast"`
	TypicalYears    int     `json:"typicalYears,omitempty" jsonschema:"for typical: how many past years"`
	TempMinC        float64 `json:"tempMinC"`
	TempMaxC        float64 `json:"tempMaxC"`
	PrecipitationMm float64 `json:"precipitationMm"`
	RainChancePct   int     `json:"rainChancePct"`
	WindMaxKmh      int     `json:"windMaxKmh"`
	WindFromDeg     int     `json:"windFromDeg" jsonschema:"where the wind blows from, degrees clockwise from north"`
	HeadwindKmh     int     `json:"headwindKmh" jsonschema:"the wind against the day's heading; negative: a tailwind"`
	Comfort         int     `json:"comfort" jsonschema:"0-100, higher is better; 39 or less raises weather_comfort_low"`
}

func lowerEnum(s, prefix string) string { return strings.ToLower(strings.TrimPrefix(s, prefix)) }

func resupplyOut(r *roadbookv1.StageResupply) *ResupplyOut {
	if r == nil {
		return nil
	}
	seg := r.GetSegmentM()
	out := &ResupplyOut{SegmentKm: round(seg/1000, 1), Points: []ResupplyPoint{}}
	if seg <= 0 {
		return out
	}
	type stretch struct {
		n    int
		kind roadbookv1.ResupplyKind
	}
	of := func(atM float64, k roadbookv1.ResupplyKind) stretch { return stretch{int(atM / seg), k} }
	more := map[stretch]int{}
	for _, o := range r.GetOmitted() {
		more[stretch{int(math.Round(o.GetFromM() / seg)), o.GetKind()}] += int(o.GetCount())
	}
	pts := r.GetPoints()
	if len(pts) > MaxStageResupplyPoints {
		// Keep the nearest of each kind per stretch; count the others.
		best := map[stretch]int{}
		for i, p := range pts {
			k := of(p.GetAtM(), p.GetKind())
			if j, ok := best[k]; !ok || p.GetOffRouteM() < pts[j].GetOffRouteM() {
				best[k] = i
			}
		}
		var kept []*roadbookv1.ResupplyPoint
		for i, p := range pts {
			if best[of(p.GetAtM(), p.GetKind())] == i && len(kept) < MaxStageResupplyPoints {
				kept = append(kept, p)
				continue
			}
			more[of(p.GetAtM(), p.GetKind())]++
		}
		pts = kept
	}
	for _, p := range pts {
		rp := ResupplyPoint{Kind: lowerEnum(p.GetKind().String(), "RESUPPLY_KIND_"), Name: bound(p.GetName(), 120),
			Km: round(p.GetAtM()/1000, 1), OffRouteM: int(math.Round(p.GetOffRouteM())), Location: latLon(p.GetLocation()),
			OpeningHours: bound(p.GetOpeningHours(), 120)}
		if p.GetOpenAtPassage() != roadbookv1.OpenAtPassage_OPEN_AT_PASSAGE_UNSPECIFIED {
			rp.OpenWhenPassing = lowerEnum(p.GetOpenAtPassage().String(), "OPEN_AT_PASSAGE_")
		}
		if m := p.GetPassageMinuteOfDay(); m > 0 {
			rp.Passage = clock(m)
		}
		out.Points = append(out.Points, rp)
	}
	for k, n := range more {
		out.More = append(out.More, ResupplyMore{FromKm: round(float64(k.n)*seg/1000, 1), ToKm: round(float64(k.n+1)*seg/1000, 1),
			Kind: lowerEnum(k.kind.String(), "RESUPPLY_KIND_"), Count: n})
	}
	slices.SortFunc(out.More, func(a, b ResupplyMore) int {
		return cmp.Or(cmp.Compare(a.FromKm, b.FromKm), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

func weatherOut(w *roadbookv1.DayWeather) *WeatherOut {
	if w == nil {
		return nil
	}
	i := func(v float64) int { return int(math.Round(v)) }
	return &WeatherOut{Kind: lowerEnum(w.GetSource().String(), "WEATHER_SOURCE_"), TypicalYears: int(w.GetTypicalYears()),
		TempMinC: round(w.GetTemperatureMinC(), 1), TempMaxC: round(w.GetTemperatureMaxC(), 1),
		PrecipitationMm: round(w.GetPrecipitationMm(), 1), RainChancePct: i(w.GetPrecipitationProbabilityPct()),
		WindMaxKmh: i(w.GetWindMaxKmh()), WindFromDeg: i(w.GetWindFromDeg()), HeadwindKmh: i(w.GetHeadwindKmh()), Comfort: i(w.GetComfort())}
}
