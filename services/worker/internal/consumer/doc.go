// Package consumer runs the worker's jobs: one durable pull consumer on
// JOBS (jobs.>, every kind: import, stages, analysis, accommodations,
// detour) feeding one bounded pool, dispatching each message by its
// subject's kind (Runner), the handlers that load the trip, compute and
// record the result through tripstore (Workers), and the max-deliveries
// advisory handler that fails a job whose worker died on its last delivery
// (MaxDeliveries).
//
// Every handler is idempotent. It reads the trip's current state and does
// nothing when the computation is no longer requested; result events get ids
// derived from the request event id (UUIDv5), so a redelivered job that
// raced a first delivery appends nothing (eventstore.ErrDuplicateEvent means
// "already done"); and trip.Decide records a result for content the trip no
// longer has as superseded instead of applying it. One function, Settle in
// fate.go, turns a handler's error into the message's fate (ack, retry,
// fail, drop).
package consumer
