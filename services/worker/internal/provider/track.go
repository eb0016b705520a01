package provider

import (
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// trackStepM is the spacing of a track: the OSM rules measure how much of a
// stage lies near a way at this resolution (stage geometry is decimated, so
// a straight road may have vertices kilometres apart).
const trackStepM = 100.0

// degToM is metres per degree of latitude on route.EarthRadiusM.
const degToM = route.EarthRadiusM * math.Pi / 180

// track is a stage resampled every trackStepM metres (linear interpolation,
// always keeping the last point), with each point's distance from the start.
type track struct {
	pts []route.Point
	at  []float64
}

// newTrack resamples pts every step metres (Haversine).
func newTrack(pts []route.Point, step float64) track {
	if len(pts) == 0 {
		return track{}
	}
	t := track{pts: []route.Point{pts[0]}, at: []float64{0}}
	walked, next := 0.0, step
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		d := route.Haversine(a, b)
		for d > 0 && next < walked+d {
			f := (next - walked) / d
			t.pts = append(t.pts, route.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon)})
			t.at = append(t.at, next)
			next += step
		}
		walked += d
	}
	if last := pts[len(pts)-1]; walked > t.at[len(t.at)-1] {
		t.pts, t.at = append(t.pts, last), append(t.at, walked)
	}
	return t
}

// length is the track's length in metres.
func (t track) length() float64 {
	if len(t.at) == 0 {
		return 0
	}
	return t.at[len(t.at)-1]
}

// pointAt is the track point at or just before at metres from the start.
func (t track) pointAt(at float64) route.Point {
	i := 0
	for i+1 < len(t.at) && t.at[i+1] <= at {
		i++
	}
	return t.pts[i]
}

// nearest is the shortest distance between the polyline line (one point
// for a node) and the track, and where along the track (metres from the
// start) it is reached; ok is false when it is farther than r.
func (t track) nearest(line []route.Point, r float64) (dist, at float64, ok bool) {
	if len(line) == 0 || len(t.pts) == 0 {
		return 0, 0, false
	}
	box := boundsOf(line).grow(r)
	dist = math.Inf(1)
	for i := range t.pts {
		j := min(i+1, len(t.pts)-1)
		if i == j && len(t.pts) > 1 {
			break
		}
		if !box.meets(boundsOf(t.pts[i : j+1])) {
			continue
		}
		pr := newProjector(t.pts[i])
		ax, ay := pr.xy(t.pts[i])
		bx, by := pr.xy(t.pts[j])
		for k := range line {
			l := min(k+1, len(line)-1)
			if k == l && len(line) > 1 {
				break
			}
			cx, cy := pr.xy(line[k])
			dx, dy := pr.xy(line[l])
			d, f := segSeg(ax, ay, bx, by, cx, cy, dx, dy)
			if d < dist {
				dist, at = d, t.at[i]+f*(t.at[j]-t.at[i])
			}
		}
	}
	return dist, at, dist <= r
}

// cover marks the track points lying within r of the polyline line.
func (t track) cover(line []route.Point, r float64, marks []bool) {
	if len(line) == 0 {
		return
	}
	box := boundsOf(line).grow(r)
	for i, p := range t.pts {
		if marks[i] || !box.holds(p) {
			continue
		}
		pr := newProjector(p)
		for k := range line {
			l := min(k+1, len(line)-1)
			if k == l && len(line) > 1 {
				break
			}
			cx, cy := pr.xy(line[k])
			dx, dy := pr.xy(line[l])
			if d, _ := pointSeg(0, 0, cx, cy, dx, dy); d <= r {
				marks[i] = true
				break
			}
		}
	}
}

// run is a stretch of a track, in metres from its start.
type run struct{ from, to float64 }

// runs turns marked track points into stretches: a step between two marked
// points counts, so a way merely crossing the route (one marked point)
// adds nothing.
func (t track) runs(marks []bool) (total float64, longest run) {
	start := -1
	for i := 0; i <= len(marks); i++ {
		if i < len(marks) && marks[i] {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-1 > start {
			r := run{t.at[start], t.at[i-1]}
			total += r.to - r.from
			if r.to-r.from > longest.to-longest.from {
				longest = r
			}
		}
		start = -1
	}
	return total, longest
}

// projector maps points to a local equirectangular plane in metres around
// an origin: exact to well under a percent within the 15 km the rules look.
type projector struct{ lat0, lon0, kx float64 }

func newProjector(o route.Point) projector {
	return projector{lat0: o.Lat, lon0: o.Lon, kx: math.Cos(o.Lat*math.Pi/180) * degToM}
}

func (p projector) xy(q route.Point) (x, y float64) {
	return (q.Lon - p.lon0) * p.kx, (q.Lat - p.lat0) * degToM
}

// pointSeg is the distance from (px,py) to the segment a–b and the
// parameter (0–1) of the closest point on it.
func pointSeg(px, py, ax, ay, bx, by float64) (d, t float64) {
	vx, vy := bx-ax, by-ay
	if l := vx*vx + vy*vy; l > 1e-9 {
		t = math.Max(0, math.Min(1, ((px-ax)*vx+(py-ay)*vy)/l))
	}
	return math.Hypot(px-ax-t*vx, py-ay-t*vy), t
}

// segSeg is the distance between the segments a–b and c–d, and the
// parameter (0–1) on a–b of the closest approach (0 when they cross).
func segSeg(ax, ay, bx, by, cx, cy, dx, dy float64) (dist, t float64) {
	rx, ry, sx, sy := bx-ax, by-ay, dx-cx, dy-cy
	if den := rx*sy - ry*sx; math.Abs(den) > 1e-12 {
		qx, qy := cx-ax, cy-ay
		u, v := (qx*sy-qy*sx)/den, (qx*ry-qy*rx)/den
		if u >= 0 && u <= 1 && v >= 0 && v <= 1 {
			return 0, u
		}
	}
	dist, t = pointSeg(cx, cy, ax, ay, bx, by)
	if d, f := pointSeg(dx, dy, ax, ay, bx, by); d < dist {
		dist, t = d, f
	}
	if d, _ := pointSeg(ax, ay, cx, cy, dx, dy); d < dist {
		dist, t = d, 0
	}
	if d, _ := pointSeg(bx, by, cx, cy, dx, dy); d < dist {
		dist, t = d, 1
	}
	return dist, t
}

// bounds is a latitude/longitude box.
type bounds struct{ minLat, minLon, maxLat, maxLon float64 }

func boundsOf(pts []route.Point) bounds {
	b := bounds{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		b.minLat, b.maxLat = math.Min(b.minLat, p.Lat), math.Max(b.maxLat, p.Lat)
		b.minLon, b.maxLon = math.Min(b.minLon, p.Lon), math.Max(b.maxLon, p.Lon)
	}
	return b
}

// grow widens the box by r metres on every side (generously near the poles).
func (b bounds) grow(r float64) bounds {
	dLat := r / degToM
	cos := math.Max(0.01, math.Cos(math.Min(89, math.Max(math.Abs(b.minLat), math.Abs(b.maxLat))+dLat)*math.Pi/180))
	dLon := r / (degToM * cos)
	return bounds{b.minLat - dLat, b.minLon - dLon, b.maxLat + dLat, b.maxLon + dLon}
}

func (b bounds) holds(p route.Point) bool {
	return p.Lat >= b.minLat && p.Lat <= b.maxLat && p.Lon >= b.minLon && p.Lon <= b.maxLon
}

func (b bounds) meets(o bounds) bool {
	return b.minLat <= o.maxLat && o.minLat <= b.maxLat && b.minLon <= o.maxLon && o.minLon <= b.maxLon
}
