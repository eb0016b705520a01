// Package aggregate loads event-sourced state from an eventstore.Store and runs
// commands against it with optimistic concurrency.
//
// It is the one place where "load (snapshot + tail), decide, append with the
// expected stream version, retry on a stream conflict" is written, so the API
// and the workers cannot drift apart in how they do it. It stays generic — the
// state type, the fold and the decision are the caller's — so the store still
// imports nothing of Roadbook's trips.
//
// A stream-version conflict here is internal (ARCHITECTURE §3): another writer,
// typically a worker's result, landed between load and append. Execute reloads
// and decides again, so the caller's rules see the newest state; the caller
// only ever sees its own rule errors (for instance a stale trip version).
package aggregate
