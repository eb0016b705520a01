package geocode

import (
	"fmt"
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// Label rules (docs/design/PACING.md "Labels that say where"): a stage end
// is named by the place a geocoder found, but only a rider standing in that
// place can use the bare name.
const (
	// NearPlaceM is how close to the place a point must be to carry its
	// bare name; farther, the label says where it is from the place
	// ("23 km SE of Otta").
	NearPlaceM = 3000.0
	// DistinctEndsM is how far apart two consecutive stage ends must be to
	// be told apart: two such ends never both carry the same bare name (the
	// one farther from the place gets a relative label).
	DistinctEndsM = 1000.0
)

// placeAt is what a geocoder answered for a point: the place (Name empty
// when it knows none there) and the point itself.
type placeAt struct {
	place Place
	point Point
}

// distanceM is the point's distance from the place in metres.
func (a placeAt) distanceM() float64 {
	return haversineM(a.point, Point{Lat: a.place.Lat, Lon: a.place.Lon})
}

// label is the point's label: the bare name near the place (unless forced
// relative), "N km DIR of Name" farther, and the coordinates when no
// geocoder knows a place there — never empty, never "?".
func (a placeAt) label(forceRelative bool) string {
	if a.place.Name == "" {
		return coordinates(a.point)
	}
	d := a.distanceM()
	if d < NearPlaceM && !forceRelative {
		return a.place.Name
	}
	if d < 500 {
		// Forced relative but on the place itself: the other end moves.
		return a.place.Name
	}
	return a.relative()
}

// Labels names a sequence of consecutive stage ends (the first stage's
// start, then each stage's end): each its label, and where two consecutive
// ends would carry the same bare name although they are more than
// DistinctEndsM apart, the one farther from its place is said relative to
// it ("12 km N of Otta" after "Otta"), or, when both are on "their" place
// (a geocoder that answers the object beside each point), the later one is
// said from the earlier one's place. places[i] is the geocoder's answer
// for points[i] (Name empty when it knows none).
func Labels(points []Point, places []Place) []string {
	at := make([]placeAt, len(points))
	for i := range points {
		at[i] = placeAt{place: places[i], point: points[i]}
	}
	force := make([]bool, len(points))
	for i := 1; i < len(at); i++ {
		a, b := at[i-1], at[i]
		if a.place.Name == "" || a.place.Name != b.place.Name || haversineM(a.point, b.point) <= DistinctEndsM {
			continue
		}
		if a.label(force[i-1]) != b.label(false) {
			continue // already told apart
		}
		if b.distanceM() >= a.distanceM() {
			force[i] = true
		} else {
			force[i-1] = true
		}
	}
	out := make([]string, len(at))
	for i := range at {
		out[i] = at[i].label(force[i])
		// Still the same bare name as the end before, kilometres away:
		// the two answers' places are not one point (a geocoder such as
		// Nominatim answers the object it found beside each end, named
		// by its settlement), so neither end is far from "its" place.
		// Say this end from the place the one before was named by.
		if i > 0 && out[i] == out[i-1] && at[i].place.Name != "" && at[i].place.Name == at[i-1].place.Name &&
			haversineM(at[i-1].point, at[i].point) > DistinctEndsM {
			from := at[i-1].place
			from.Name = at[i].place.Name
			out[i] = placeAt{place: from, point: at[i].point}.relative()
		}
	}
	return out
}

// relative is the point said from the place: "N km DIR of Name" (at least
// 1 km).
func (a placeAt) relative() string {
	km := max(1, int(math.Round(a.distanceM()/1000)))
	return fmt.Sprintf("%d km %s of %s", km, compass(Point{Lat: a.place.Lat, Lon: a.place.Lon}, a.point), a.place.Name)
}

// compass is the 8-wind direction from a to b ("N", "NE", … "NW").
func compass(a, b Point) string {
	const rad = math.Pi / 180
	y := math.Sin((b.Lon-a.Lon)*rad) * math.Cos(b.Lat*rad)
	x := math.Cos(a.Lat*rad)*math.Sin(b.Lat*rad) - math.Sin(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Cos((b.Lon-a.Lon)*rad)
	bearing := math.Mod(math.Atan2(y, x)/rad+360, 360)
	return [...]string{"N", "NE", "E", "SE", "S", "SW", "W", "NW"}[int(math.Round(bearing/45))%8]
}

// coordinates names a point no geocoder knows: "61.54° N, 9.32° E", the
// domain's one format (route.CoordinatesText), which a trip also reads for
// ends labelled empty before this rule.
func coordinates(p Point) string {
	return route.CoordinatesText(route.Point{Lat: p.Lat, Lon: p.Lon})
}

// haversineM is the great-circle distance in metres.
func haversineM(a, b Point) float64 {
	const r = 6371000.0
	const rad = math.Pi / 180
	dLat, dLon := (b.Lat-a.Lat)*rad, (b.Lon-a.Lon)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * r * math.Asin(math.Min(1, math.Sqrt(h)))
}

// StageLabels names the two ends of each stage (in trip order) by Labels
// over the chain of stage ends, where each stage starts where the one before
// it ended; a stage that starts elsewhere (an edit left a gap) has its start
// named on its own. place answers the geocoder's place at a point (Name
// empty when none). Both labelers — the paced queue and the offline
// gazetteer's — use it, so every geocoder's labels follow one rule.
func StageLabels(stages []StageEnds, place func(Point) Place) []StageLabel {
	if len(stages) == 0 {
		return nil
	}
	chain := make([]Point, 0, len(stages)+1) // stage i starts at chain[i], ends at chain[i+1]
	for i, s := range stages {
		if i == 0 {
			chain = append(chain, s.Start)
		}
		chain = append(chain, s.End)
	}
	places := make([]Place, len(chain))
	for k, p := range chain {
		places[k] = place(p)
	}
	names := Labels(chain, places)
	out := make([]StageLabel, len(stages))
	for i, s := range stages {
		start := names[i]
		if i > 0 && round(s.Start) != round(stages[i-1].End) {
			start = Labels([]Point{s.Start}, []Place{place(s.Start)})[0]
		}
		out[i] = StageLabel{Index: s.Index, ContentHash: s.ContentHash, Start: start, End: names[i+1]}
	}
	return out
}
