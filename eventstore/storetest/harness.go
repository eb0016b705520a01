// Package storetest is the conformance suite of the event store
// (ARCHITECTURE §4): every backend runs Run against itself, so callers may
// rely on the documented behaviour of eventstore.Store whatever the backend.
//
// It imports only package eventstore, test libraries and NATS (for the relay
// test, which publishes to a real embedded JetStream), and its payloads are
// protobuf well-known types, so it depends on no Roadbook message.
package storetest

import (
	"context"
	"testing"

	"github.com/roadbook/roadbook/eventstore"
)

// Harness adapts a backend to the suite.
type Harness struct {
	// New returns a fresh, empty, migrated store for one test; the harness
	// registers its cleanup with t.Cleanup.
	New func(t *testing.T) eventstore.Store

	// ConcurrentTransactions is true when appends run in concurrent
	// transactions (PostgreSQL). A single-writer backend sets it false and
	// the tests whose subject is interleaved transactions are skipped.
	ConcurrentTransactions bool

	// HoldAppend, when set, begins req in a transaction and returns with it
	// written but uncommitted; commit finishes it. The gap test uses it.
	HoldAppend func(ctx context.Context, s eventstore.Store, req eventstore.AppendRequest) (commit func() error, err error)
}

// Run runs every conformance test as a parallel subtest of t.
func Run(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h Harness)
	}{
		{"an append round-trips its events, metadata and summary", testRoundTrip},
		{"a multi-event append is atomic: a bad event writes nothing", testAtomicAppend},
		{"every expected-version kind is honoured", testExpectedVersions},
		{"of 50 racers at one version exactly one wins, 200 rounds", testRacers},
		{"a duplicate event id is refused and writes nothing", testDuplicateEvent},
		{"an idempotency key executes once for 20 concurrent callers", testIdempotencyConcurrent},
		{"an idempotency key with another request is a mismatch", testIdempotencyMismatch},
		{"an expired idempotency key runs again", testIdempotencyExpired},
		{"an idempotency key is looked up without appending", testIdempotencyLookup},
		{"the feed does not skip a transaction that commits late (gap test)", testGap},
		{"random writers with rollbacks reach a tailing reader exactly once in order", testRandomized},
		{"a relay crash between publish and cursor save loses and doubles nothing", testRelayCrash},
		{"cursors are saved per reader", testCursors},
		{"streams are listed per owner with filters and keyset pages", testListStreams},
		{"snapshots round-trip per schema version", testSnapshots},
		{"blobs are stored once by hash", testBlobs},
		{"a deleted stream is gone and its id never reused", testDelete},
		{"housekeeping removes expired keys and unreferenced blobs", testHousekeeping},
		{"invalid requests are refused by name and write nothing", testValidation},
		{"a stream never changes owner", testOwnerMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, h)
		})
	}
}
