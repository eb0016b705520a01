// Package export turns a planned trip into the files a rider takes on the
// road (DOMAIN §10): a GPX 1.1 file with waypoints, a FIT course for
// Garmin-compatible devices and a plain-text roadbook with a budget.
//
// It is pure: it reads no clock, touches no network or disk and only writes
// to the io.Writer it is given, so the API (which streams exports and share
// links) and any worker produce byte-identical files from the same input.
// Its input types (Trip, Stage, POI, Accommodation) are its own, so the trip
// aggregate and the API map to them without this package depending on
// either.
//
// Privacy (DOMAIN §8): nothing from the uploaded file other than its points,
// the trip title and the source link ever reaches an export. GPX exports
// write no <time> and no <author> unless GPXOptions asks for them, and FIT
// timestamps are derived from the planned departure and speed (or a fixed
// epoch), never from the original file.
package export
