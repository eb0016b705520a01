package trip

import "github.com/roadbook/roadbook/domain/route"

// MeasureRoute is what a trip records of an imported or uploaded route,
// its blob hash aside: the point count, the length, the climbing when every
// point has an elevation (else none: climbing from zeros would be a lie) and
// the source's title capped at MaxTitleChars. The API's upload and the
// import worker record the same facts from it.
func MeasureRoute(r *route.Route) RouteInfo {
	info := RouteInfo{
		PointCount: len(r.Points), DistanceM: route.Length(r.Points), ElevationKnown: r.ElevationKnown,
		Title: capRunes(r.Title, MaxTitleChars),
	}
	if r.ElevationKnown {
		info.AscentM, info.DescentM = route.Elevation(r.Points)
	}
	return info
}
