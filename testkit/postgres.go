package testkit

import (
	"context"
	"testing"

	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
)

// Store opens the PostgreSQL event store on a fresh schema with every
// migration applied (pgtest.SchemaURL), closed when t ends.
func Store(t testing.TB) *postgres.Store {
	t.Helper()
	return StoreAt(t, SchemaURL(t))
}

// StoreAt opens the event store at url (a schema of SchemaURL), closed when
// t ends: a second store on the same schema is another replica.
func StoreAt(t testing.TB, url string) *postgres.Store {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatalf("testkit: open the event store: %v", err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("testkit: migrate the event store: %v", err)
	}
	return s
}

// SchemaURL is a fresh, migrated schema on the test server, dropped when t
// ends (pgtest.SchemaURL), for code that opens its own connections.
func SchemaURL(t testing.TB) string {
	t.Helper()
	return pgtest.SchemaURL(t)
}
