// Package consumer runs the workers: one durable pull consumer on jobs.>
// (Runner) feeding a bounded pool, each message dispatched by its subject's
// kind (import, stages, analysis, accommodations, detour) to the handlers
// that load the trip, compute, and record the result through tripstore.
//
// Every handler is idempotent. It reads the trip's current state and does
// nothing when the computation is no longer requested; result events get ids
// derived from the request event id (UUIDv5), so a redelivered job that
// raced a first delivery appends nothing (eventstore.ErrDuplicateEvent means
// "already done"); and trip.Decide records a result for content the trip no
// longer has as superseded instead of applying it. One function, Decide in
// decision.go, turns a handler's error into the message's fate.
package consumer
