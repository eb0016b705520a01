// Package tripstore is where trips meet the event store: the stream naming
// (trip streams, each user's collection stream, the share-link index), the
// aggregate definition (fold, list summary), the route blobs, the trace and
// correlation carried in event metadata, the deletion of a trip's streams,
// the idempotency replay and the one function that translates store errors
// into trip errors.
//
// The planner decides users' commands with it and the workers record their
// results with it, so both write the same summary row and treat a foreign or
// deleted trip the same way (not found). It is a module of its own, below
// every service, so no service imports another to reach it.
package tripstore
