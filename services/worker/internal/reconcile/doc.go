// Package reconcile re-enqueues requested computations that have no terminal
// event after a deadline. JetStream fsyncs every two minutes by default and a
// job can age out or exhaust its deliveries while its worker was killed, so
// PostgreSQL stays the source of truth: the reconciler follows the same feed
// as the relay, remembers every request the job table maps, forgets one as
// soon as the feed shows it needs nothing more (its answer, caused by it,
// passed; or its trip was deleted), and asks the folded trip about the rest
// after the deadline: if it still waits, it publishes the job again under a
// fresh message id. Workers are idempotent, so a job that was merely
// slow costs one no-op delivery.
package reconcile
