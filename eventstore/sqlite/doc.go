// Package sqlite is the embedded event store of one-process mode
// (`roadbook dev`): eventstore.Store on one SQLite file through
// modernc.org/sqlite (pure Go, so the binary needs no C toolchain).
//
// # Single writer
//
// Every write (append, delete, snapshot, blob, cursor, housekeeping chunk)
// runs in a transaction on one dedicated write connection, taken through a
// context-aware semaphore. SQLite never sees two write transactions, so a
// caller never gets SQLITE_BUSY: concurrency shows up only as the typed
// outcomes of eventstore (a *eventstore.VersionConflictError, an idempotent
// replay). Reads use a separate pool of query_only connections; in WAL mode
// they read a committed snapshot without waiting for the writer.
//
// Pragmas: journal_mode=WAL (readers and the writer do not block each
// other); busy_timeout=10s (only another process on the same file can make
// a connection wait); foreign_keys=on; synchronous=FULL rather than NORMAL.
// NORMAL in WAL mode may lose the last commits on power loss; the relay may
// already have published those events to JetStream and saved its cursor
// past them, and AUTOINCREMENT positions roll back with them, so new events
// would reuse positions behind the saved cursor and be skipped. FULL makes
// an acknowledged append durable, which the feed's exactly-once hand-off
// relies on; its cost (one fsync of the WAL per commit) is small next to
// one-process mode's request rate.
//
// # Schema
//
// It mirrors the PostgreSQL backend's (migrations/0001_init.sql): events
// (global_position INTEGER PRIMARY KEY AUTOINCREMENT, so positions are never
// reused even after a deletion), streams with version, owner and summary,
// tombstones, snapshots tagged with the state schema version, command_dedup
// (idempotency keys expiring at the caller's Idempotency.ExpiresAt),
// reader_cursors, blobs and stream_blobs. Payloads are protojson under the
// message's full name, read back through protoregistry.GlobalTypes. Times are
// INTEGER microseconds. Migrations are embedded and run by an explicit
// Migrate, never by Open.
//
// # Feed
//
// Commit order equals position order, because only one transaction writes
// at a time and positions are assigned inside it; so the feed is simply
// "position > cursor" in position order and Cursor.TxID stays 0. Notify
// wakes in-process feed readers at the next commit (eventstore.Notifier).
//
// ListQuery.Match is containment of top-level keys, evaluated with
// json_each over the match object and json_extract per key on the summary:
// values compare by JSON type and value (numbers numerically); nested
// objects and arrays must be equal, not merely contained.
//
// # Conformance tests made moot
//
// The storetest suite runs with ConcurrentTransactions=false, which skips
// one test: the gap test (A opens, B commits, a reader reads, A commits). Its
// subject is a transaction that commits after a later-begun one became
// visible; here no transaction can be open while another commits, so a
// commit can never land below an already-visible position, and there is no
// HoldAppend for this backend: holding the writer open would block B for
// ever, not let it commit.
//
// Everything else runs, including the tests whose hazards the single writer
// removes but whose outcomes still matter: the 50 racers (they queue on the
// writer and exactly one per round finds the expected version), the
// randomized writers with rollbacks (duplicate-id and cancelled appends roll
// back and leave no trace in the tailing feed) and the relay crash.
package sqlite
