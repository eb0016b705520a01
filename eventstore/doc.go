// Package eventstore is Roadbook's event store: append-only streams of typed
// protobuf payloads with owners and summaries, optimistic concurrency on the
// stream version, idempotency keys, snapshots and an ordered feed for the relay.
//
// It is deliberately generic: it imports nothing of Roadbook's trips or protos,
// so the same store serves any aggregate and its conformance suite
// (package storetest) pins the behaviour of every backend — PostgreSQL for
// production (package postgres) and an embedded single-writer backend for
// one-process mode (package sqlite).
package eventstore
