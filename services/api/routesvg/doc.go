// Package routesvg draws a route as small, self-contained SVG documents:
// its elevation profile (Profile) and its outline with the day ends marked
// (Outline). The share page inlines them once per day and once for the
// whole trip, and owners fetch the profile from /trips/{id}/profile.svg, so
// both draw the same picture from the same code.
//
// The drawings are computed from the stored stage geometry and reduced to a
// fixed number of points (min/max decimation per distance bin for a profile,
// route.Decimate for an outline), so a drawing's size does not grow with the
// route: a 30-day page stays small. Every text they carry (titles, which may
// be third-party) is escaped; they hold no script and no external reference.
package routesvg
