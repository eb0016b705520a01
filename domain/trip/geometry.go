package trip

import (
	"math"
	"sort"

	"github.com/roadbook/roadbook/domain/route"
)

// Stage geometry for the structural edits of DOMAIN §4. Every point Decide
// puts into an event is first quantized to what the event encoding keeps
// (micro-degrees, decimetres), so the state Evolve rebuilds from the event is
// bit-for-bit the state Decide reasoned about, and content hashes agree.

// quantize rounds a point to the event encoding's precision.
func quantize(p route.Point) route.Point {
	q := route.Point{Lat: math.Round(p.Lat*1e6) / 1e6, Lon: math.Round(p.Lon*1e6) / 1e6}
	if p.HasEle {
		q.Ele, q.HasEle = math.Round(p.Ele*10)/10, true
	}
	return q
}

// quantizeLine quantizes a polyline; elevation survives only when every
// point has one (the encoding has one flag for the whole line).
func quantizeLine(pts []route.Point) []route.Point {
	known := len(pts) > 0
	for _, p := range pts {
		known = known && p.HasEle
	}
	out := make([]route.Point, len(pts))
	for i, p := range pts {
		if !known {
			p.HasEle, p.Ele = false, 0
		}
		out[i] = quantize(p)
	}
	return out
}

// straightStage is an inserted or re-pointed stage: a straight line between
// two points, Vincenty distance, elevation unknown (counted 0).
func straightStage(start, end route.Point, origin Origin) Stage {
	start, end = quantize(route.Point{Lat: start.Lat, Lon: start.Lon}), quantize(route.Point{Lat: end.Lat, Lon: end.Lon})
	geom := []route.Point{start, end}
	return Stage{Origin: origin, Start: start, End: end, Geometry: geom, DistanceM: route.Length(geom)}
}

// restDayAt is a 0-km rest day at one point.
func restDayAt(p route.Point) Stage {
	p = quantize(p)
	return Stage{Origin: OriginRestDay, RestDay: true, Start: p, End: p}
}

// mergeStages concatenates a and b (a before b): geometries joined (the
// shared point once), distance recomputed over the joined geometry, climbing
// summed, on-route span kept when both follow the route end to end.
func mergeStages(a, b Stage) Stage {
	geom := append([]route.Point(nil), a.Geometry...)
	for i, p := range b.Geometry {
		if i == 0 && len(geom) > 0 && geom[len(geom)-1] == p {
			continue
		}
		geom = append(geom, p)
	}
	geom = quantizeLine(geom)
	m := Stage{
		Origin:    OriginMerged,
		Start:     a.Start,
		End:       b.End,
		Geometry:  geom,
		DistanceM: route.Length(geom),
		AscentM:   a.AscentM + b.AscentM,
		DescentM:  a.DescentM + b.DescentM,
		Waypoints: append(append([]Waypoint(nil), a.Waypoints...), b.Waypoints...),
		Chosen:    b.Chosen,
	}
	if a.OnRoute && b.OnRoute && math.Abs(a.RouteEndM-b.RouteStartM) < 1 {
		m.OnRoute, m.RouteStartM, m.RouteEndM = true, a.RouteStartM, b.RouteEndM
	}
	return m
}

// along is a route with each point's distance from its start, for walking
// it.
type along struct {
	pts []route.Point
	cum []float64 // cum[i] = metres from pts[0] to pts[i]
}

// newAlong measures a route once, on the scale the days measure it
// (route.MeasuredDistances: along the 20 m line the pacing engine cuts), so
// a paced stage's RouteStartM and RouteEndM, and a split "at 45 km" of a
// stage whose length is measured on that line, land where the days say.
// Measured on the raw points instead, a split of an alpine route's sixth
// day started kilometres before the day did.
// A measured route.Line (the caller's cached measurement) is walked as is.
func newAlong(l route.Line) along {
	if !l.Measured() {
		l = route.Measure(l.Points)
	}
	return along{pts: l.Points, cum: l.CumM}
}

// length is the route's total length in metres.
func (a along) length() float64 { return a.cum[len(a.cum)-1] }

// at is the point at m metres along the route, interpolated inside its
// segment (elevation too when both ends have one).
func (a along) at(m float64) route.Point {
	i := sort.SearchFloat64s(a.cum, m) // first cum >= m
	switch {
	case i <= 0:
		return a.pts[0]
	case i >= len(a.pts):
		return a.pts[len(a.pts)-1]
	}
	p, q := a.pts[i-1], a.pts[i]
	seg := a.cum[i] - a.cum[i-1]
	if seg <= 0 {
		return q
	}
	t := (m - a.cum[i-1]) / seg
	r := route.Point{Lat: p.Lat + t*(q.Lat-p.Lat), Lon: p.Lon + t*(q.Lon-p.Lon)}
	if p.HasEle && q.HasEle {
		r.Ele, r.HasEle = p.Ele+t*(q.Ele-p.Ele), true
	}
	return r
}

// slice is the raw points between two distances, ends interpolated.
func (a along) slice(from, to float64) []route.Point {
	out := []route.Point{a.at(from)}
	for i, c := range a.cum {
		if c > from && c < to {
			out = append(out, a.pts[i])
		}
	}
	return append(out, a.at(to))
}

// nearest is the distance along the route of the vertex closest to p
// (Haversine, the proximity metric), for stages that carry no route span.
func (a along) nearest(p route.Point) float64 {
	best, bestD := 0, math.Inf(1)
	for i, q := range a.pts {
		if d := route.Haversine(p, q); d < bestD {
			best, bestD = i, d
		}
	}
	return a.cum[best]
}

// startM and endM are where a stage begins and ends along the route.
func (a along) startM(st Stage) float64 {
	if st.OnRoute {
		return st.RouteStartM
	}
	return a.nearest(st.Start)
}

func (a along) endM(st Stage) float64 {
	if st.OnRoute {
		return st.RouteEndM
	}
	return a.nearest(st.End)
}

// span is the stage following the route from one distance to another:
// geometry = Douglas–Peucker (20 m) of the raw slice, distance = Vincenty over
// that geometry, D+/D− from the raw slice (DOMAIN §3 "per stage").
func (a along) span(from, to float64, origin Origin) Stage {
	raw := a.slice(from, to)
	geom := quantizeLine(route.Simplify(raw, route.DecimationToleranceM))
	st := Stage{
		Origin:      origin,
		Start:       geom[0],
		End:         geom[len(geom)-1],
		Geometry:    geom,
		DistanceM:   route.Length(geom),
		OnRoute:     true,
		RouteStartM: from,
		RouteEndM:   to,
	}
	if geom[0].HasEle {
		st.AscentM, st.DescentM = route.Elevation(raw)
		st.AscentM, st.DescentM = math.Round(st.AscentM), math.Round(st.DescentM)
	}
	return st
}

// detourEstimate is twice the straight-line (Haversine) distance from p to
// the nearest point of the stage's polyline: DOMAIN §4's estimate when no
// routing engine is configured. The nearest point is taken on the segments,
// not only the vertices, because decimated vertices can be far apart.
func detourEstimate(p route.Point, line []route.Point) float64 {
	if len(line) == 0 {
		return 0
	}
	return 2 * route.Haversine(p, nearestOnLine(p, line))
}

// nearestOnLine is the point of a non-empty polyline nearest to p.
func nearestOnLine(p route.Point, line []route.Point) route.Point {
	best, bestD := line[0], route.Haversine(p, line[0])
	for i := 1; i < len(line); i++ {
		q := nearestOnSegment(p, line[i-1], line[i])
		if d := route.Haversine(p, q); d < bestD {
			best, bestD = q, d
		}
	}
	return best
}

// nearestOnSegment projects p onto a–b on a local equirectangular plane.
func nearestOnSegment(p, a, b route.Point) route.Point {
	k := math.Cos(a.Lat * math.Pi / 180)
	bx, by := (b.Lon-a.Lon)*k, b.Lat-a.Lat
	px, py := (p.Lon-a.Lon)*k, p.Lat-a.Lat
	seg := bx*bx + by*by
	if seg == 0 {
		return a
	}
	t := math.Max(0, math.Min(1, (px*bx+py*by)/seg))
	return route.Point{Lat: a.Lat + t*(b.Lat-a.Lat), Lon: a.Lon + t*(b.Lon-a.Lon)}
}

// moveEnd ends a stage at p instead (an accommodation): p appended as the
// new last point, distance recomputed.
func moveEnd(st Stage, p route.Point) Stage {
	p = quantize(route.Point{Lat: p.Lat, Lon: p.Lon})
	if st.RestDay {
		st.Start, st.End = p, p
		return st
	}
	if n := len(st.Geometry); n > 0 && st.Geometry[n-1].HasEle {
		p.Ele, p.HasEle = st.Geometry[n-1].Ele, true // the place is near the old end
	}
	geom := append(append([]route.Point(nil), st.Geometry...), p)
	st.Geometry = quantizeLine(geom)
	st.End = st.Geometry[len(st.Geometry)-1]
	st.DistanceM = route.Length(st.Geometry)
	st.OnRoute = false
	st.Origin = OriginManualPoints
	return st
}

// moveStart starts a stage at p instead: p prepended as the new first point.
func moveStart(st Stage, p route.Point) Stage {
	p = quantize(route.Point{Lat: p.Lat, Lon: p.Lon})
	if st.RestDay {
		st.Start, st.End = p, p
		return st
	}
	if len(st.Geometry) > 0 && st.Geometry[0].HasEle {
		p.Ele, p.HasEle = st.Geometry[0].Ele, true
	}
	geom := append([]route.Point{p}, st.Geometry...)
	st.Geometry = quantizeLine(geom)
	st.Start = st.Geometry[0]
	st.DistanceM = route.Length(st.Geometry)
	st.OnRoute = false
	st.Origin = OriginManualPoints
	return st
}
