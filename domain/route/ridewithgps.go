package route

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MaxRideWithGPSBytes bounds the RideWithGPS JSON body a reader accepts.
const MaxRideWithGPSBytes = 30 << 20

// ReadRideWithGPS reads the body of RideWithGPS GET /routes/{id}.json or of
// the v1 API's /api/v1/routes/{id}.json, which wraps the same object in
// "route": the points are track_points[{x: lon, y: lat, e: ele, d: metres}]
// and the title is "name" (DOMAIN §2). A point without e makes the route's
// elevation unknown. Errors are *ReadError with Format "ridewithgps":
// ErrTooLarge, ErrMalformed (not JSON), ErrNotFound (no track_points),
// ErrCoordinate (x or y missing or out of range) and ErrEmptyRoute.
func ReadRideWithGPS(body []byte) (*Route, error) {
	if len(body) > MaxRideWithGPSBytes {
		return nil, rwgpsError(ErrTooLarge, fmt.Sprintf("the body is larger than %s", formatBytes(MaxRideWithGPSBytes)))
	}
	var doc struct {
		rwgpsRoute
		Route *rwgpsRoute `json:"route"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, rwgpsError(ErrMalformed, "body is not the expected JSON: "+jsonReason(err))
	}
	r := &doc.rwgpsRoute
	if doc.Route != nil && doc.Route.TrackPoints != nil {
		r = doc.Route
	}
	if r.TrackPoints == nil {
		return nil, rwgpsError(ErrNotFound, "the body has no track_points (neither at the top nor under \"route\")")
	}
	if len(*r.TrackPoints) == 0 {
		return nil, rwgpsError(ErrEmptyRoute, "track_points is empty")
	}
	tp := *r.TrackPoints
	pts := make([]Point, len(tp))
	for i, p := range tp {
		switch {
		case p.Y == nil:
			return nil, rwgpsError(ErrCoordinate, fmt.Sprintf("track_points[%d] has no y (latitude)", i))
		case p.X == nil:
			return nil, rwgpsError(ErrCoordinate, fmt.Sprintf("track_points[%d] has no x (longitude)", i))
		}
		if reason := validCoordinate(*p.Y, *p.X); reason != "" {
			return nil, rwgpsError(ErrCoordinate, fmt.Sprintf("track_points[%d]: %s", i, reason))
		}
		pts[i] = Point{Lat: *p.Y, Lon: *p.X}
		if p.E != nil {
			if *p.E < minEleM || *p.E > maxEleM {
				return nil, rwgpsError(ErrCoordinate, fmt.Sprintf("track_points[%d]: e %v m is outside %d..%d m", i, *p.E, minEleM, maxEleM))
			}
			pts[i].Ele, pts[i].HasEle = *p.E, true
		}
	}
	return &Route{
		Title:          strings.TrimSpace(r.Name),
		Points:         pts,
		ElevationKnown: elevationKnown(pts),
		Source:         SourceRideWithGPS,
	}, nil
}

// rwgpsRoute is the route object; pointers tell a missing field from 0.
type rwgpsRoute struct {
	Name        string        `json:"name"`
	TrackPoints *[]rwgpsPoint `json:"track_points"`
}

type rwgpsPoint struct {
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
	E *float64 `json:"e"`
	D *float64 `json:"d"`
}

func rwgpsError(kind error, reason string) error {
	return &ReadError{Format: "ridewithgps", Reason: reason, Kind: kind}
}
