// Package postgres is the production backend of the event store: PostgreSQL
// through a pgx/v5 pool.
//
// Appends take a transaction-scoped advisory lock on the stream (it assigns
// no transaction id), then write the stream row first — a compare-and-swap
// `UPDATE streams … WHERE version = n`, or an insert for a new stream — and
// the events in the same statement, so one append is one network round trip
// and the transaction id of each append of one stream is taken only while it
// holds the stream: per-stream order in the feed follows.
//
// The feed is the xid8 design of ARCHITECTURE §4: events whose transaction id
// is below the oldest transaction still running (pg_snapshot_xmin) are final,
// so a reader takes them in (tx_id, global_position) order after its tuple
// cursor and never skips one that committed late. The price is that any long
// transaction in the cluster holds the feed back, so transactions here stay
// short (deletions are chunked, idle_in_transaction_session_timeout is set).
//
// Migrations are embedded and run only by an explicit Migrate call.
package postgres
