// Package route reads routes (GPX, Komoot and RideWithGPS payloads) and holds
// the geometry every other rule builds on: Vincenty and Haversine distances,
// Douglas–Peucker decimation, the elevation-gain rule and a compact,
// content-addressed binary encoding of points.
package route
