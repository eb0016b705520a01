// Package job is the contract between the relay and the workers: the kinds of
// work, the JetStream subjects and message ids they travel under, the JSON
// payload of a job message, and the one table that says which committed
// events need work (ARCHITECTURE §2).
//
// Keeping the table here, rather than in the relay, lets the reconciler ask
// the same question ("does this event request a computation?") without a
// second copy that could drift.
package job
