package route

// Point is one route vertex in WGS-84 degrees. Ele is metres above sea level;
// HasEle says whether the source gave one, because a missing <ele> counts as
// 0 m in sums but the trip must say its elevation is unknown rather than
// report 0 m of climbing.
type Point struct {
	Lat, Lon float64
	Ele      float64
	HasEle   bool
}
