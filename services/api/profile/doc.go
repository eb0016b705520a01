// Package profile draws a route's elevation profile as a small,
// self-contained SVG document: the share page inlines it once per day and
// once for the whole trip, owners fetch it from /trips/{id}/profile.svg, and
// the CLI writes it to a file. It lives in its own public package so all
// three draw the same picture from the same code.
//
// The drawing is computed from the stored stage geometry and reduced to a
// fixed number of points (min/max decimation per distance bin), so a
// profile's size does not grow with the route: a 30-day page stays small.
package profile
