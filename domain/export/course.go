package export

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/muktihari/fit/profile/typedef"

	"github.com/roadbook/roadbook/domain/route"
)

// course is what the GPX and FIT writers put on a device, built either from
// the whole trip or from one stage so both writers agree on what "the trip"
// means: one line of points cut into riding days, and the named points of
// each day (its end, where to sleep, the rider's waypoints, where to refill
// water and buy food) in route order.
type course struct {
	name   string
	points []route.Point
	days   []day
	// ascentM and descentM are the totals over the days (D+/D− by the route
	// rules, not recomputed here); eleKnown is false when any day lacks
	// them.
	ascentM, descentM float64
	eleKnown          bool
}

// day is one riding day of a course: its span of the course's points
// (first..last inclusive; a day's first point is the previous day's last,
// the cut point) and its marks.
type day struct {
	// n is the day's number from 1, rest days counted (as "Day N" in every
	// export and on the share page).
	n int
	// title is "Day 3 · Lillehammer → Otta · 2026-06-03" (the label and the
	// date only when known).
	title string
	// fitName is the day in at most FITNameMaxBytes: "D3 Otta".
	fitName           string
	first, last       int
	ascentM, descentM float64
	eleKnown          bool
	marks             []mark
}

// mark is one named point for the rider, with what each format calls it.
type mark struct {
	name, desc string
	lat, lon   float64
	// sym and typ are the GPX <sym> (a Garmin symbol name) and <type>.
	sym, typ string
	// cp is the FIT course point type; fit, when set, is its FIT name
	// (already within FITNameMaxBytes), else the name is cut to fit.
	cp  typedef.CoursePoint
	fit string
	// at is the index of the course point nearest to it within its day,
	// where the FIT course point sits and which orders the day's marks.
	at int
	// prio is what a FIT course keeps first when a trip has more marks
	// than FITMaxCoursePoints (fitBudget).
	prio priority
}

// tripCourse joins every riding day into one line. Consecutive stages share
// their cut point (the end of one is the start of the next), so a stage's
// first point is dropped when it repeats the previous last point: a
// duplicated vertex would add a zero-length step and a duplicate FIT record.
func tripCourse(t Trip) course {
	c := course{name: t.Title, eleKnown: true}
	for i, s := range t.Stages {
		c.ascentM += s.AscentM
		c.descentM += s.DescentM
		c.eleKnown = c.eleKnown && (s.RestDay || !s.ElevationUnknown)
		if len(s.Points) == 0 {
			continue
		}
		first := len(c.points)
		for j, p := range s.Points {
			if j == 0 && len(c.points) > 0 && samePosition(c.points[len(c.points)-1], p) {
				first--
				continue
			}
			c.points = append(c.points, p)
		}
		c.days = append(c.days, newDay(c.points, t.Stages, i, first, len(c.points)-1))
	}
	return c
}

// stageCourse is the stage at position i (0-based) on its own, named by its
// day title.
func stageCourse(t Trip, i int) (course, error) {
	if i < 0 || i >= len(t.Stages) {
		return course{}, fmt.Errorf("%w: position %d, the trip has %d stages", ErrNoSuchStage, i, len(t.Stages))
	}
	s := t.Stages[i]
	c := course{points: s.Points, ascentM: s.AscentM, descentM: s.DescentM, eleKnown: !s.ElevationUnknown}
	if len(s.Points) > 0 {
		d := newDay(s.Points, t.Stages, i, 0, len(s.Points)-1)
		c.name, c.days = d.title, []day{d}
	} else {
		c.name = dayTitle(s, i)
	}
	return c, nil
}

// newDay builds the day of the stage at position i of stages spanning
// pts[first..last] with its marks in route order: the rider's waypoints
// (and those of a rest day after it, which has no track of its own: the
// rider spends it where this day ends), the resupply points and other POIs,
// where to sleep, the day's summit, and finally the day's end.
func newDay(pts []route.Point, stages []Stage, i, first, last int) day {
	s := stages[i]
	d := day{n: i + 1, title: dayTitle(s, i), fitName: dayFITName(s, i), first: first, last: last,
		ascentM: s.AscentM, descentM: s.DescentM, eleKnown: !s.ElevationUnknown}
	where := fmt.Sprintf("Day %d", d.n)
	for _, w := range s.Waypoints {
		d.marks = append(d.marks, waypointMark(w, where))
	}
	if i+1 < len(stages) && stages[i+1].RestDay {
		for _, w := range stages[i+1].Waypoints {
			d.marks = append(d.marks, waypointMark(w, fmt.Sprintf("Day %d (rest day)", i+2)))
		}
	}
	for _, r := range s.Resupply {
		k := resupplyPOIKind(r.Kind)
		name := cleanText(r.Name)
		if name == "" {
			name = resupplyLabel(r.Kind)
		}
		d.marks = append(d.marks, mark{name: name, desc: resupplyDesc(where, r), lat: r.Lat, lon: r.Lon,
			sym: poiSymbol(k), typ: string(r.Kind), cp: coursePointType(k), prio: poiPriority(k)})
	}
	for _, p := range s.POIs {
		d.marks = append(d.marks, mark{name: p.Name, desc: where, lat: p.Lat, lon: p.Lon,
			sym: poiSymbol(p.kind()), typ: string(p.kind()), cp: coursePointType(p.kind()), prio: poiPriority(p.kind())})
	}
	for _, a := range lodgings(s) {
		desc, prio := fmt.Sprintf("%s: where to sleep (%s)", where, nightPrice(a)), prioCandidate
		if s.Accommodation != nil && a == *s.Accommodation {
			desc, prio = fmt.Sprintf("%s: the night's chosen accommodation (%s)", where, nightPrice(a)), prioNight
		}
		d.marks = append(d.marks, mark{name: a.Name, desc: desc, lat: a.Lat, lon: a.Lon,
			sym: lodgingSymbol(a.Type), typ: lodgingType(a.Type), cp: lodgingCoursePoint(a.Type), prio: prio})
	}
	span := pts[first : last+1]
	if top, ok := daySummit(span); ok {
		p := span[top]
		d.marks = append(d.marks, mark{name: fmt.Sprintf("Day %d top %.0f m", d.n, p.Ele), desc: fmt.Sprintf("%s: the day's highest point, %.0f m", where, p.Ele),
			lat: p.Lat, lon: p.Lon, sym: poiSymbol(POISummit), typ: "day_summit", cp: typedef.CoursePointSummit,
			fit: fitName(fmt.Sprintf("Top %.0f m", p.Ele)), prio: prioSummit})
	}
	for j := range d.marks {
		d.marks[j].at = first + nearestPoint(span, d.marks[j].lat, d.marks[j].lon)
	}
	slices.SortStableFunc(d.marks, func(a, b mark) int { return cmp.Compare(a.at, b.at) })
	end := pts[last]
	name, fit := fmt.Sprintf("Day %d end", d.n), fitName(fmt.Sprintf("Day %d end", d.n))
	if l := cleanText(s.EndLabel); l != "" {
		name, fit = name+": "+l, d.fitName
	}
	d.marks = append(d.marks, mark{name: name, desc: dayDesc(s, i), lat: end.Lat, lon: end.Lon,
		sym: "Flag, Red", typ: "day_end", cp: typedef.CoursePointSegmentEnd, fit: fit, at: last, prio: prioDayEnd})
	return d
}

// waypointMark is one of the rider's waypoints as a mark of a day's file;
// where names the day in its description.
func waypointMark(w Waypoint, where string) mark {
	k := WaypointKind(w.Category)
	typ := "waypoint"
	if w.Category != "" {
		typ = "waypoint:" + w.Category
	}
	return mark{name: w.Name, desc: where + ": your waypoint", lat: w.Lat, lon: w.Lon,
		sym: poiSymbol(k), typ: typ, cp: coursePointType(k), prio: prioWaypoint}
}

// SummitMinRiseM is how far a day's highest point must rise above both its
// start and its end to be marked as the day's summit: less is a rolling day
// with no climb worth a course point.
const SummitMinRiseM = 150.0

// daySummit is the index of a day's highest point when the day climbs to it
// — SummitMinRiseM above both its start and its end; false for a day without
// elevation or without such a climb.
func daySummit(pts []route.Point) (int, bool) {
	if len(pts) < 3 || !pts[0].HasEle || !pts[len(pts)-1].HasEle {
		return 0, false
	}
	top := -1
	for i, p := range pts {
		if p.HasEle && (top < 0 || p.Ele > pts[top].Ele) {
			top = i
		}
	}
	rise := pts[top].Ele - math.Max(pts[0].Ele, pts[len(pts)-1].Ele)
	return top, top > 0 && top < len(pts)-1 && rise >= SummitMinRiseM
}

// lodgings are where the rider may sleep after a stage: the chosen
// accommodation, or — when none is chosen yet — the candidates near the
// day's end, so the rider can still pick on the road. None after the last
// day of a trip is filtered by the caller's data (it has none).
func lodgings(s Stage) []Accommodation {
	if s.Accommodation != nil {
		return []Accommodation{*s.Accommodation}
	}
	return s.Candidates
}

// dayTitle is "Day 3 · Lillehammer → Otta · 2026-06-03", the label and the
// date only when known.
func dayTitle(s Stage, i int) string {
	t := "Day " + strconv.Itoa(i+1)
	if l := cleanText(s.Label); l != "" {
		t += " · " + l
	}
	if !s.Date.IsZero() {
		t += " · " + s.Date.Format(time.DateOnly)
	}
	return t
}

// dayFITName is the day within FIT's name limit: "D3 " and where it ends
// ("D3 Otta"), or "Day 3".
func dayFITName(s Stage, i int) string {
	if l := cleanText(s.EndLabel); l != "" {
		return fitName("D" + strconv.Itoa(i+1) + " " + l)
	}
	return fitName("Day " + strconv.Itoa(i+1))
}

// dayDesc is the day-end waypoint's description: "Day 3 · 2026-06-03: 85.2
// km, ↑1200 m ↓900 m".
func dayDesc(s Stage, i int) string {
	d := "Day " + strconv.Itoa(i+1)
	if !s.Date.IsZero() {
		d += " · " + s.Date.Format(time.DateOnly)
	}
	return d + ": " + formatKm(s.DistanceM) + ", " + formatClimb(s.AscentM, s.DescentM, !s.ElevationUnknown)
}

// resupplyDesc is "Day 3, km 34.2 · Mo-Sa 08:00-20:00 · open when you pass".
func resupplyDesc(where string, r Resupply) string {
	d := where + ", km " + strconv.FormatFloat(r.AtM/1000, 'f', 1, 64)
	if oh := cleanText(r.OpeningHours); oh != "" {
		d += " · " + oh
	}
	if s := passage(r.Open); s != "" {
		d += " · " + s
	}
	if r.PassAt != "" {
		d += " · you pass about " + cleanText(r.PassAt)
	}
	return d
}

// nightPrice is a night's price in a waypoint description: "free" (a camp
// site tagged fee=no prices 0–0), "30 €" when exact, else "40–80 €".
func nightPrice(a Accommodation) string {
	switch {
	case a.PriceMinEUR == 0 && a.PriceMaxEUR == 0:
		return "free"
	case a.PriceMinEUR == a.PriceMaxEUR:
		return formatEUR(a.PriceMinEUR) + " €"
	}
	return formatRange(a.PriceMinEUR, a.PriceMaxEUR)
}

// passage phrases an open-at-passage state for a rider.
func passage(open string) string {
	switch open {
	case "open":
		return "open when you pass"
	case "closed":
		return "closed when you pass"
	}
	return ""
}

// resupplyPOIKind is the POI kind that draws a resupply point.
func resupplyPOIKind(k ResupplyKind) POIKind {
	switch k {
	case ResupplyWater:
		return POIWater
	case ResupplyShop:
		return POIStore
	default:
		return POIFood
	}
}

// resupplyLabel names a resupply point OSM gives no name.
func resupplyLabel(k ResupplyKind) string {
	switch k {
	case ResupplyWater:
		return "Drinking water"
	case ResupplyShop:
		return "Food shop"
	default:
		return "Café"
	}
}

// WaypointKind maps a rider's free waypoint category to the kind that picks
// its GPX symbol and FIT course point type; an unknown category is generic.
func WaypointKind(category string) POIKind {
	switch category {
	case "water", "drinking_water", "fountain", "spring", "water_point", "refill":
		return POIWater
	case "food", "restaurant", "cafe", "café", "bakery", "lunch", "pub", "bar", "fast_food":
		return POIFood
	case "shop", "store", "supermarket", "grocery", "convenience", "market":
		return POIStore
	case "camp", "camping", "campsite", "camp_site", "bivouac", "bivy":
		return POICampsite
	case "shelter", "hut", "hostel", "hotel", "lodging", "sleep", "accommodation", "guest_house", "wilderness_hut", "alpine_hut":
		return POIShelter
	case "summit", "peak", "pass", "col", "top":
		return POISummit
	case "first_aid", "pharmacy", "hospital", "doctor", "doctors", "clinic":
		return POIFirstAid
	case "toilet", "toilets", "wc":
		return POIToilet
	case "viewpoint", "view", "photo", "sight":
		return POIViewpoint
	}
	return POIGeneric
}

func samePosition(a, b route.Point) bool { return a.Lat == b.Lat && a.Lon == b.Lon }

// nearestPoint is the index of the route point closest to (lat, lon), by an
// equirectangular approximation: only the ranking matters, and at the
// distances that separate candidates it ranks like Haversine.
func nearestPoint(pts []route.Point, lat, lon float64) int {
	k := math.Cos(lat * math.Pi / 180)
	best, bestD := 0, math.Inf(1)
	for i, p := range pts {
		dLon := math.Abs(p.Lon - lon)
		if dLon > 180 {
			dLon = 360 - dLon
		}
		dx, dy := dLon*k, p.Lat-lat
		if d := dx*dx + dy*dy; d < bestD {
			best, bestD = i, d
		}
	}
	return best
}
