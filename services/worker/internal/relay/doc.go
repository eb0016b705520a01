// Package relay hands every committed event of the store's ordered feed to
// JetStream: each event to EVENTS (fan-out, Nats-Msg-Id = event id) and the
// events that need work to JOBS (the table of package job, Nats-Msg-Id =
// <kind>:<request event id>). It saves its feed cursor only after JetStream
// acknowledged every message of a batch, so a crash hands the tail on again:
// EVENTS is kept an exact prefix of the feed's trip events (each message
// expects the stream's last sequence, and a relay reads the stream's last
// message before it starts and after a failure, leaving out what is there:
// head.go), and JOBS' dedup window drops the jobs published again: nothing
// lost, nothing doubled.
//
// One relay is active at a time: it holds a lease in a NATS KV bucket with a
// TTL, renewed while it runs; standbys wait for the key to lapse. A KV lease
// works the same with PostgreSQL and with the embedded store of one-process
// mode, where an advisory lock would not exist.
package relay
