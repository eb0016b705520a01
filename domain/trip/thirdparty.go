package trip

import (
	"slices"

	"github.com/roadbook/roadbook/domain/thirdparty"
)

// Third-party text — route and tour titles from a GPX file, Komoot or
// RideWithGPS, place names from the geocoder, accommodation names and
// websites from OpenStreetMap — enters the aggregate only through the
// commands recording a route (Create with an upload, RecordRouteImported),
// labels (RecordLabels), accommodation candidates
// (RecordAccommodationsFound) and the resupply points of an analysis
// (RecordAnalysis: OSM names and opening hours). Their deciders clean it here, before it is
// an event, so no reader of the store (the API, the MCP tools, the share
// page, exports) ever receives bidi overrides, tag characters or other
// invisible format characters (package thirdparty says why). Text the user
// typed (titles, a manual accommodation, waypoint names) is theirs and is
// not rewritten.

// cleaned is r with its titles cleaned.
func (r RouteInfo) cleaned() RouteInfo {
	r.Title = thirdparty.Clean(r.Title)
	if len(r.Tours) > 0 {
		r.Tours = slices.Clone(r.Tours)
		for i := range r.Tours {
			r.Tours[i].Title = thirdparty.Clean(r.Tours[i].Title)
		}
	}
	return r
}

// cleaned is a with its name and website cleaned.
func (a Accommodation) cleaned() Accommodation {
	a.Name = thirdparty.Clean(a.Name)
	a.Website = thirdparty.Clean(a.Website)
	return a
}

// cleaned is p with its name and opening hours cleaned.
func (p ResupplyPoint) cleaned() ResupplyPoint {
	p.Name = thirdparty.Clean(p.Name)
	p.OpeningHours = thirdparty.Clean(p.OpeningHours)
	return p
}
