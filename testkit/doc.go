// Package testkit is what Roadbook's tests share, so no module rebuilds its
// own infrastructure: an embedded NATS server with JetStream (NATS,
// StartNATS), an event store on a fresh, migrated PostgreSQL schema (Store,
// SchemaURL), an injectable clock (Clock), and — in subpackages — the real
// fixtures embedded once with their provenance (package fixtures) and the
// 30-stage trip the read benchmarks measure (package benchtrip).
//
// Tests talk to real PostgreSQL (ROADBOOK_TEST_DATABASE_URL, see
// eventstore/pgtest) and a real nats-server, never to mocks; every server a
// test starts listens on a port the OS chose.
//
// The whole stack in one process (API, worker and MCP service on these) is
// the sibling module testkit/stack: it sits above the services, which import
// only this one, so no service's tests depend on another service.
package testkit
