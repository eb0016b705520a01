package route

import (
	"fmt"
	"math"
)

// Source says where a Route's points came from. A GPX track and a GPX route
// are told apart because planners export routes (rtept, often sparse) while
// devices record tracks, and the import event records which one was used.
type Source string

// The sources a Route can have.
const (
	// SourceGPXTrack: trk/trkseg/trkpt of a GPX document.
	SourceGPXTrack Source = "gpx-track"
	// SourceGPXRoute: rte/rtept of a GPX document that had no track points.
	SourceGPXRoute Source = "gpx-route"
	// SourceKomoot: the coordinates embedded in a Komoot tour page.
	SourceKomoot Source = "komoot"
	// SourceRideWithGPS: track_points of a RideWithGPS route body.
	SourceRideWithGPS Source = "ridewithgps"
)

// Route is what every reader returns: the ordered points the rider follows
// plus the little metadata the trip keeps. It is plain data so the pacing
// engine and the encoders can use it without knowing the source format.
type Route struct {
	// Title is the route's name from the source (first trk/name, rte/name,
	// the Komoot tour name...), trimmed; empty when the source has none.
	Title string
	// Points are the route's vertices in order (at least one).
	Points []Point
	// ElevationKnown is true only when every point has an elevation. A route
	// with some or all elevations missing must be shown as "elevation
	// unknown" rather than reporting climbing computed from zeros.
	ElevationKnown bool
	// Source says which format and element the points came from.
	Source Source
	// Waypoints are the GPX wpt elements (rest stops, water points), kept
	// because planners such as BRouter put useful stops there. Nil for
	// platform payloads.
	Waypoints []Waypoint
}

// Waypoint is a named point of interest that is not part of the route line.
type Waypoint struct {
	Point
	// Name is the wpt/name text, trimmed; may be empty.
	Name string
}

// elevationKnown reports whether every point carries an elevation.
func elevationKnown(pts []Point) bool {
	if len(pts) == 0 {
		return false
	}
	for i := range pts {
		if !pts[i].HasEle {
			return false
		}
	}
	return true
}

// validCoordinate reports whether lat/lon are finite and within range; the
// JSON readers share it.
func validCoordinate(lat, lon float64) string {
	switch {
	case math.IsNaN(lat) || math.IsInf(lat, 0) || lat < -90 || lat > 90:
		return fmt.Sprintf("latitude %v is outside -90..90", lat)
	case math.IsNaN(lon) || math.IsInf(lon, 0) || lon < -180 || lon > 180:
		return fmt.Sprintf("longitude %v is outside -180..180", lon)
	}
	return ""
}
