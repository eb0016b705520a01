package route

import (
	"fmt"
	"math"
)

// Point is one route vertex in WGS-84 degrees. Ele is metres above sea level;
// HasEle says whether the source gave one, because a missing <ele> counts as
// 0 m in sums but the trip must say its elevation is unknown rather than
// report 0 m of climbing.
type Point struct {
	Lat, Lon float64
	Ele      float64
	HasEle   bool
}

// CoordinatesText names a point where no place is known, as every stage
// label does ("61.54° N, 9.32° E"): a label says where even in the open sea
// or a wilderness no gazetteer covers (docs/design/PACING.md "Labels that
// say where").
func CoordinatesText(p Point) string {
	ns, ew := "N", "E"
	if p.Lat < 0 {
		ns = "S"
	}
	if p.Lon < 0 {
		ew = "W"
	}
	return fmt.Sprintf("%.2f° %s, %.2f° %s", math.Abs(p.Lat), ns, math.Abs(p.Lon), ew)
}
