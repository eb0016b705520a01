// Package planner is Roadbook's application layer: one function per use
// case of a rider's trips — create from an upload or a link, duplicate, each
// stage edit, settings, waypoints, accommodations, analyses, shares,
// deletion, the account — over the pure domain (package trip) and the trip
// store (package tripstore). The Connect handlers translate a request into
// a call here and the result into a response, and nothing else; the workers
// call it for what they share with the API (ComputeStages). It knows no RPC
// type.
//
// Who calls is in the context (auth.FromContext, put there by the API's
// auth interceptor); a write's idempotency key, its request fingerprint and
// whether it only previews come in a Write, the same for every use case, so
// idempotency and validate-only live in one place (change.go).
//
// Every refusal is a typed error: the domain's *trip.Error, or this
// package's *InvalidError and *RateLimitedError, translated into a Connect
// error in exactly one function at the API's boundary.
package planner
