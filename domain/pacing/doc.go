// Package pacing cuts a route into days: Roadbook's pacing engine of DOMAIN
// §3. Days are cut by effort (km + climbing/elevationPenalty), weighted by
// fatigue that resets after each rest day, with effort targets that add up to
// the route and a km cap enforced by water-filling; cut points are
// interpolated inside segments. It is pure Go with no I/O, so the API and the
// workers get the same plan from the same route and settings; the trip keys a
// plan by (route hash, trip.Settings.PacingHash) (ARCHITECTURE §3).
//
// The reference planner's formula (compounding fatigue over the whole trip,
// clamps that break the sum, a last day that absorbs the error) is not
// implemented here; the tests keep it as an oracle to show the difference.
package pacing
