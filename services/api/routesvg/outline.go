package routesvg

import (
	"math"

	"github.com/roadbook/roadbook/domain/route"
)

// outlinePoints bounds the route outline's vertices: enough to recognise
// the route, few enough that a long trip's page stays small.
const outlinePoints = 400

// Outline draws the route as a line on a blank background (no map
// tiles: they would need the network), with the start, the finish and the
// end of every riding day marked. It uses an equirectangular projection
// around the route's middle latitude, which is faithful at a trip's scale.
// dayEnds are the last points of the riding days (the last is the finish).
func Outline(line []route.Point, dayEnds []route.Point, title string) []byte {
	if len(line) < 2 {
		return nil
	}
	pts := route.Decimate(line, outlinePoints)
	minLat, maxLat, minLon, maxLon := 90.0, -90.0, 180.0, -180.0
	for _, p := range pts {
		minLat, maxLat = math.Min(minLat, p.Lat), math.Max(maxLat, p.Lat)
		minLon, maxLon = math.Min(minLon, p.Lon), math.Max(maxLon, p.Lon)
	}
	k := math.Cos((minLat + maxLat) / 2 * math.Pi / 180)
	spanX, spanY := math.Max((maxLon-minLon)*k, 1e-6), math.Max(maxLat-minLat, 1e-6)
	// A 300-unit-wide box (the height follows the route's shape, kept
	// between a letterbox and a tall column so the page lays out well).
	const w, pad = 300.0, 12.0
	scale := (w - 2*pad) / spanX
	h := spanY*scale + 2*pad
	if h > 2*w {
		scale = (2*w - 2*pad) / spanY
		h = 2 * w
	}
	h = math.Max(h, 120)
	offX := (w - spanX*scale) / 2
	offY := (h - spanY*scale) / 2
	x := func(p route.Point) float64 { return offX + (p.Lon-minLon)*k*scale }
	y := func(p route.Point) float64 { return offY + (maxLat-p.Lat)*scale }

	var b svgWriter
	b.s(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `).f(w).s(" ").f(h).s(`" class="outline" role="img"><title>`)
	b.text(title)
	b.s(`</title><path d="`)
	for i, p := range pts {
		if i == 0 {
			b.s("M")
		} else {
			b.s("L")
		}
		b.f(x(p)).s(",").f(y(p))
	}
	b.s(`" fill="none" stroke="#c0392b" stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round"/>`)
	for i, p := range dayEnds {
		if i == len(dayEnds)-1 {
			break // the finish gets its own mark
		}
		b.s(`<circle cx="`).f(x(p)).s(`" cy="`).f(y(p)).s(`" r="3" fill="#fff" stroke="#333" stroke-width="1.2"/>`)
	}
	first, last := pts[0], pts[len(pts)-1]
	b.s(`<circle cx="`).f(x(first)).s(`" cy="`).f(y(first)).s(`" r="5.5" fill="#2f6b2f"><title>Start</title></circle>`)
	b.s(`<circle cx="`).f(x(last)).s(`" cy="`).f(y(last)).s(`" r="5.5" fill="#111"><title>Finish</title></circle>`)
	b.s(`</svg>`)
	return b.Bytes()
}
