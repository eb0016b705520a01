// Package feedwake carries the store's in-process commit signal
// (eventstore.Notifier) to feed readers in other processes, over core NATS.
//
// The relay learns of a commit made through its own store value at once (the
// Notifier). A commit made by the API in another process, or by another
// worker replica, it saw only at its next poll, 250 ms later: in a deployment
// with separate processes that poll was the hop's p99 (docs/BENCHMARKS.md,
// "Tenth session"). An Announcer publishes one small message after each burst
// of commits through its store value; a Listener wakes the relay on every
// announcement but those of its own process, which its Notifier already
// covers.
//
// Announcements are a hint, never a record: a lost one (NATS down, a slow
// subscriber) costs at most the poll interval, which stays as the safety net,
// and the feed's order and completeness rest on the store alone. That is why
// it is core NATS and not PostgreSQL's NOTIFY, which was tried first: a
// notifying transaction is given an id at its commit, which holds the feed
// back for the appends committing meanwhile, and it needs a pool connection
// that an outage can leave broken (docs/BENCHMARKS.md, "Ninth session").
package feedwake
