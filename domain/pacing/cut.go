package pacing

import (
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// vertexSnap is how close (as a fraction of a segment) a cut must be to a
// vertex to be taken as the vertex itself, so a day never starts with a
// zero-length sliver of a segment.
const vertexSnap = 1e-9

// cut is a point where one day ends and the next begins: inside decimated
// segment seg (between vertices seg and seg+1) at fraction t of it (t == 0:
// at vertex seg), with the interpolated point and the raw index nearest it.
type cut struct {
	seg int
	t   float64
	pt  route.Point
	raw int
}

// cutAt is the cut where the running effort reaches e. Effort grows linearly
// inside a segment, so the fraction t is the fraction of the segment's effort
// still needed; the point is interpolated linearly in lat, lon and ele (a
// decimated segment is a chord no longer than a few km, where the linear
// interpolation lies within millimetres of the geodesic).
func (p *profile) cutAt(e float64) cut {
	last := len(p.dec) - 1
	if e >= p.totalEff() {
		return cut{seg: last, pt: p.dec[last], raw: len(p.raw) - 1}
	}
	if e <= 0 {
		return cut{pt: p.dec[0], raw: 0}
	}
	j := p.segmentAt(e)
	t := (e - p.cumEff[j]) / (p.cumEff[j+1] - p.cumEff[j])
	switch {
	case t <= vertexSnap:
		return cut{seg: j, pt: p.dec[j], raw: p.decRaw[j]}
	case t >= 1-vertexSnap:
		return cut{seg: j + 1, pt: p.dec[j+1], raw: p.decRaw[j+1]}
	}
	a, b := p.dec[j], p.dec[j+1]
	pt := route.Point{
		Lat:    a.Lat + t*(b.Lat-a.Lat),
		Lon:    a.Lon + t*(b.Lon-a.Lon),
		Ele:    a.Ele + t*(b.Ele-a.Ele),
		HasEle: a.HasEle && b.HasEle,
	}
	return cut{seg: j, t: t, pt: pt, raw: p.rawNear(j, t)}
}

// rawNear is the raw point, among those the decimated segment j spans, whose
// distance along the raw track is nearest fraction t of the way: the raw
// index where a cut at t splits the day's raw span (for D+ and D−).
func (p *profile) rawNear(j int, t float64) int {
	from, to := p.decRaw[j], p.decRaw[j+1]
	if to-from < 2 {
		if t < 0.5 {
			return from
		}
		return to
	}
	total := 0.0
	for i := from + 1; i <= to; i++ {
		total += route.Vincenty(p.raw[i-1], p.raw[i])
	}
	if total <= 0 {
		return from + int(math.Round(t*float64(to-from)))
	}
	want, run, best, bestGap := t*total, 0.0, from, t*total
	for i := from + 1; i <= to; i++ {
		run += route.Vincenty(p.raw[i-1], p.raw[i])
		if gap := math.Abs(run - want); gap < bestGap {
			best, bestGap = i, gap
		}
	}
	return best
}

// slice is the decimated route between two cuts, cut points included.
func (p *profile) slice(from, to cut) []route.Point {
	out := make([]route.Point, 0, to.seg-from.seg+2)
	out = append(out, from.pt)
	for v := from.seg + 1; v <= to.seg && v < len(p.dec); v++ {
		out = append(out, p.dec[v])
	}
	if to.t > 0 || to.seg <= from.seg {
		out = append(out, to.pt)
	}
	return out
}

// buildStage measures one riding day between two cuts (DOMAIN §3 "Per
// stage"): geometry = its slice of the Douglas–Peucker(20 m) route with the
// cut points at its ends, distance = the Vincenty sum of that geometry, D+/D−
// from the raw points in its span.
//
// The route is decimated once and sliced, rather than each slice decimated
// again: a second pass over already-kept vertices would judge them against
// new, longer chords, leaving raw points up to 2 × 20 m off the geometry and
// shaving tens of metres per day, so the days would neither add up to the
// route nor meet the cap exactly. Every raw point of the span already lies
// within 20 m of the slice (the interpolated cut points lie on a chord).
func buildStage(p *profile, m Model, from, to cut) Stage {
	geom := p.slice(from, to)
	gain, loss := route.Elevation(p.raw[from.raw : to.raw+1])
	return Stage{
		Start:     geom[0],
		End:       geom[len(geom)-1],
		DistanceM: route.Length(geom),
		AscentM:   gain,
		DescentM:  loss,
		Geometry:  geom,
		RawFrom:   from.raw,
		RawTo:     to.raw,
		RidingS:   m.StageSeconds(geom, gain),
	}
}

// distinctPoints counts the points of a day's geometry that are not a repeat
// (same lat/lon) of the point before: a day of fewer than 2 is not a day.
func distinctPoints(geom []route.Point) int {
	n := 0
	for i, q := range geom {
		if i == 0 || q.Lat != geom[i-1].Lat || q.Lon != geom[i-1].Lon {
			n++
		}
	}
	return n
}

// fold merges every riding day of fewer than 2 distinct points into the
// remainder of the route (the next day; the day before when it is the last),
// re-measuring the merged day from its new ends. It only bites on degenerate
// input (a vertical step in the data, a route shorter than a metre), since
// every target is at least the floor of effort.
func fold(p *profile, m Model, days []Stage) []Stage {
	out := make([]Stage, 0, len(days))
	for i := 0; i < len(days); i++ {
		st := days[i]
		if distinctPoints(st.Geometry) >= 2 || len(days) == 1 {
			out = append(out, st)
			continue
		}
		if i+1 < len(days) {
			next := days[i+1]
			days[i+1] = mergeStages(p, m, st, next)
			continue
		}
		if len(out) > 0 {
			out[len(out)-1] = mergeStages(p, m, out[len(out)-1], st)
			continue
		}
		out = append(out, st)
	}
	return out
}

// mergeStages joins two consecutive riding days into one, keeping the first
// day's weight and summing their targets.
func mergeStages(p *profile, m Model, a, b Stage) Stage {
	geom := append(append([]route.Point(nil), a.Geometry...), b.Geometry[1:]...)
	gain, loss := route.Elevation(p.raw[a.RawFrom : b.RawTo+1])
	return Stage{
		Start: geom[0], End: geom[len(geom)-1], DistanceM: route.Length(geom),
		AscentM: gain, DescentM: loss, Geometry: geom,
		RawFrom: a.RawFrom, RawTo: b.RawTo,
		Weight: a.Weight, TargetS: a.TargetS + b.TargetS, RidingS: m.StageSeconds(geom, gain),
	}
}
