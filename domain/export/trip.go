package export

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/roadbook/roadbook/domain/route"
)

// Trip is everything an export needs from a planned trip. It is this
// package's own shape so the trip aggregate and the API can map to it
// without export depending on either of them.
type Trip struct {
	// Title is the trip title (third-party text: it usually comes from the
	// route file or a Komoot tour name). Empty means untitled.
	Title string
	// SourceURL is the link the route was imported from; empty for uploads.
	SourceURL string
	// Stages are the trip's days in order, rest days included. A stage's
	// position in this slice (from 1) is its number in "Stage N" and "Day N".
	Stages []Stage
}

// Stage is one day of the trip: a riding day with its share of the route,
// or a rest day with no points.
type Stage struct {
	// Label is the stage's display name (e.g. "Oslo → Hamar"); empty means
	// "Stage N".
	Label string
	// EndLabel is the place the day ends (third-party text), which names
	// the day-end waypoint and course point; empty when unknown.
	EndLabel string
	// Date is the stage's calendar date when the trip has dates; the zero
	// value means unknown and the text roadbook prints "Day N" instead.
	Date time.Time
	// RestDay marks a day without riding: no distance, three meals.
	RestDay bool
	// DistanceM, AscentM and DescentM are the stage totals computed by the
	// route rules (Vincenty distance, D+/D− with the 3 m run threshold).
	DistanceM, AscentM, DescentM float64
	// ElevationUnknown says the route had no elevation, so the text says so
	// instead of printing 0 m of climbing (DOMAIN §2).
	ElevationUnknown bool
	// Points are the stage's route points; a stage's first point is usually
	// the previous stage's last (the cut point).
	Points []route.Point
	// Accommodation is the one the rider chose for the night after this
	// stage, nil when none is chosen.
	Accommodation *Accommodation
	// Candidates are the accommodations offered near the stage end; the GPX
	// export writes them as waypoints so the rider can pick on the road.
	Candidates []Accommodation
	// POIs are other notable points along the stage (summits, first aid…).
	POIs []POI
	// Waypoints are the rider's own points on the stage (user text); their
	// category picks the GPX symbol and the FIT course point type
	// (WaypointKind).
	Waypoints []Waypoint
	// Resupply are the day's drinking water, food shops and cafés found
	// along the route by the analysis, in route order.
	Resupply []Resupply
	// Weather is the day's forecast or typical conditions; nil when there is
	// none (the text roadbook then says why: no dates, or none found).
	Weather *Weather
	// ResupplyChecked says the analysis looked for resupply points on this
	// day, so an empty Resupply means "none found", not "not looked".
	ResupplyChecked bool
}

// Waypoint is one of the rider's own points on a stage (DOMAIN §4).
type Waypoint struct {
	// Name is user text.
	Name string
	// Category is the rider's free category ("water", "camp", "summit");
	// WaypointKind maps it to a POI kind.
	Category string
	// Lat and Lon are WGS-84 degrees.
	Lat, Lon float64
}

// ResupplyKind is what a resupply point offers.
type ResupplyKind string

// The three kinds of resupply point of the analysis.
const (
	// ResupplyWater is drinking water: a tap, a fountain, a spring.
	ResupplyWater ResupplyKind = "water"
	// ResupplyShop is a shop selling food: supermarket, convenience store,
	// bakery, general store.
	ResupplyShop ResupplyKind = "shop"
	// ResupplyFood is somewhere to eat: a café, restaurant or fast food.
	ResupplyFood ResupplyKind = "food"
)

// Resupply is one place along a day to refill water or buy food.
type Resupply struct {
	// Kind is water, shop or food.
	Kind ResupplyKind
	// Name is third-party text from OSM; empty for many water taps.
	Name string
	// Lat and Lon are WGS-84 degrees.
	Lat, Lon float64
	// AtM is how far along the day the route passes it, in metres.
	AtM float64
	// OpeningHours is the OSM opening_hours value when tagged (third-party
	// text).
	OpeningHours string
	// Open says whether it is open when the rider is expected to pass:
	// "open", "closed", or "" when unknown (no hours, no date, or hours
	// Roadbook cannot read).
	Open string
	// PassAt is the rider's estimated local time there, "HH:MM"; empty
	// when unknown.
	PassAt string
}

// Weather is one day's weather as the analysis found it.
type Weather struct {
	// Typical is true for conditions typical of the place and date (from
	// past years), false for a forecast.
	Typical bool
	// TempMinC and TempMaxC are the day's minimum and maximum, °C.
	TempMinC, TempMaxC float64
	// PrecipitationMM is the day's precipitation, mm.
	PrecipitationMM float64
	// WindKmh is the maximum wind speed, km/h.
	WindKmh float64
	// HeadwindKmh is the wind's component against the day's heading
	// (negative: a tailwind).
	HeadwindKmh float64
	// Comfort is the DOMAIN §5 comfort index, 0–100.
	Comfort float64
}

// Accommodation is a place to sleep. Its price is a range because DOMAIN §6
// prices are exact only when OSM gives a fee; otherwise they are a bracket.
type Accommodation struct {
	// Name is third-party text from OSM.
	Name string
	// Type is the DOMAIN §6 type: hotel, guest_house, chalet, hostel,
	// alpine_hut, camp_site or wilderness_hut.
	Type string
	// Lat and Lon are WGS-84 degrees.
	Lat, Lon float64
	// PriceMinEUR and PriceMaxEUR bound the price for one night; equal when
	// the price is exact, both 0 when it is free.
	PriceMinEUR, PriceMaxEUR float64
}

// POIKind is what a point of interest offers the rider; it picks the GPX
// symbol and the FIT course point type.
type POIKind string

// The kinds of point of interest an export knows. Anything else is refused
// so a typo in a mapping cannot silently become a generic point.
const (
	// POIGeneric is any other notable point.
	POIGeneric POIKind = "generic"
	// POIFood is somewhere to eat or buy food.
	POIFood POIKind = "food"
	// POIWater is drinking water.
	POIWater POIKind = "water"
	// POIFirstAid is a pharmacy, doctor or first-aid post.
	POIFirstAid POIKind = "first_aid"
	// POISummit is a summit or pass.
	POISummit POIKind = "summit"
	// POIStore is a shop selling food.
	POIStore POIKind = "store"
	// POICampsite is a camp site.
	POICampsite POIKind = "campsite"
	// POIShelter is a roofed place to sleep (hut, hostel, hotel).
	POIShelter POIKind = "shelter"
	// POIToilet is a public toilet.
	POIToilet POIKind = "toilet"
	// POIViewpoint is a viewpoint.
	POIViewpoint POIKind = "viewpoint"
)

// poiKinds are the kinds validate accepts, in the order errors list them.
var poiKinds = []POIKind{POIGeneric, POIFood, POIWater, POIFirstAid, POISummit, POIStore, POICampsite, POIShelter, POIToilet, POIViewpoint}

// POI is a point of interest along a stage.
type POI struct {
	// Name is third-party text from OSM.
	Name string
	// Kind classifies the point; the empty kind means POIGeneric.
	Kind POIKind
	// Lat and Lon are WGS-84 degrees.
	Lat, Lon float64
}

// kind returns the POI's kind with the empty value read as generic.
func (p POI) kind() POIKind {
	if p.Kind == "" {
		return POIGeneric
	}
	return p.Kind
}

// stageName is the stage's label, or "Stage N" for the stage at position
// i (0-based) when it has none.
func stageName(s Stage, i int) string {
	if s.Label != "" {
		return s.Label
	}
	return fmt.Sprintf("Stage %d", i+1)
}

// validate checks every number an export writes, so no NaN, infinity or
// out-of-range coordinate reaches a file a device must load.
func (t Trip) validate() error {
	for i, s := range t.Stages {
		if err := s.validate(fmt.Sprintf("stages[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

func (s Stage) validate(path string) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"distance_m", s.DistanceM}, {"ascent_m", s.AscentM}, {"descent_m", s.DescentM}} {
		if err := nonNegative(path+"."+f.name, f.v); err != nil {
			return err
		}
	}
	for j, p := range s.Points {
		if err := checkLatLon(fmt.Sprintf("%s.points[%d]", path, j), p.Lat, p.Lon); err != nil {
			return err
		}
		if p.HasEle && (math.IsNaN(p.Ele) || math.IsInf(p.Ele, 0)) {
			return &InputError{Field: fmt.Sprintf("%s.points[%d].ele", path, j), Problem: fmt.Sprintf("%v is not a finite number", p.Ele)}
		}
	}
	if s.Accommodation != nil {
		if err := s.Accommodation.validate(path + ".accommodation"); err != nil {
			return err
		}
	}
	for j, a := range s.Candidates {
		if err := a.validate(fmt.Sprintf("%s.candidates[%d]", path, j)); err != nil {
			return err
		}
	}
	for j, p := range s.POIs {
		field := fmt.Sprintf("%s.pois[%d]", path, j)
		if err := checkLatLon(field, p.Lat, p.Lon); err != nil {
			return err
		}
		if !slices.Contains(poiKinds, p.kind()) {
			return &InputError{Field: field + ".kind", Problem: fmt.Sprintf("%q is not one of %v", p.Kind, poiKinds)}
		}
	}
	for j, w := range s.Waypoints {
		if err := checkLatLon(fmt.Sprintf("%s.waypoints[%d]", path, j), w.Lat, w.Lon); err != nil {
			return err
		}
	}
	for j, r := range s.Resupply {
		field := fmt.Sprintf("%s.resupply[%d]", path, j)
		if err := checkLatLon(field, r.Lat, r.Lon); err != nil {
			return err
		}
		switch r.Kind {
		case ResupplyWater, ResupplyShop, ResupplyFood:
		default:
			return &InputError{Field: field + ".kind", Problem: fmt.Sprintf("%q is not one of water, shop, food", r.Kind)}
		}
		if err := nonNegative(field+".at_m", r.AtM); err != nil {
			return err
		}
	}
	if w := s.Weather; w != nil {
		for _, f := range []struct {
			name string
			v    float64
		}{{"temp_min_c", w.TempMinC}, {"temp_max_c", w.TempMaxC}, {"precipitation_mm", w.PrecipitationMM}, {"wind_kmh", w.WindKmh}, {"headwind_kmh", w.HeadwindKmh}, {"comfort", w.Comfort}} {
			if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
				return &InputError{Field: path + ".weather." + f.name, Problem: fmt.Sprintf("%v is not a finite number", f.v)}
			}
		}
	}
	return nil
}

func (a Accommodation) validate(path string) error {
	if err := checkLatLon(path, a.Lat, a.Lon); err != nil {
		return err
	}
	if err := nonNegative(path+".price_min_eur", a.PriceMinEUR); err != nil {
		return err
	}
	if err := nonNegative(path+".price_max_eur", a.PriceMaxEUR); err != nil {
		return err
	}
	if a.PriceMaxEUR < a.PriceMinEUR {
		return &InputError{Field: path + ".price_max_eur", Problem: fmt.Sprintf("%v is below price_min_eur %v", a.PriceMaxEUR, a.PriceMinEUR)}
	}
	return nil
}

func nonNegative(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return &InputError{Field: field, Problem: fmt.Sprintf("%v is not a finite number >= 0", v)}
	}
	return nil
}

func checkLatLon(field string, lat, lon float64) error {
	if math.IsNaN(lat) || lat < -90 || lat > 90 {
		return &InputError{Field: field + ".lat", Problem: fmt.Sprintf("%v is outside [-90, 90]", lat)}
	}
	if math.IsNaN(lon) || lon < -180 || lon > 180 {
		return &InputError{Field: field + ".lon", Problem: fmt.Sprintf("%v is outside [-180, 180]", lon)}
	}
	return nil
}
