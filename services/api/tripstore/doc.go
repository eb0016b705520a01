// Package tripstore is where trips meet the event store: the stream naming,
// the aggregate definition (fold, list summary), the route blobs and the one
// function that translates store errors into trip errors.
//
// The API decides users' commands with it and the workers record their
// results with it, so both write the same summary row and treat a foreign or
// deleted trip the same way (not found). It lives in the API module because
// the API is the one place where every rule is enforced; the worker imports
// it rather than keeping a second copy.
package tripstore
