// Package relay hands every committed event of the store's ordered feed to
// JetStream: each event to EVENTS (fan-out, Nats-Msg-Id = event id) and the
// events that need work to JOBS (the table of package job, Nats-Msg-Id =
// <kind>:<request event id>). It saves its feed cursor only after JetStream
// acknowledged every message of a batch, so a crash re-publishes the tail,
// which the streams' dedup window drops: nothing lost, nothing doubled.
//
// One relay is active at a time: it holds a lease in a NATS KV bucket with a
// TTL, renewed while it runs; standbys wait for the key to lapse. A KV lease
// works the same with PostgreSQL and with the embedded store of one-process
// mode, where an advisory lock would not exist.
package relay
