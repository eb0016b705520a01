package sqlite_test

import (
	"testing"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/storetest"
)

// TestConformance runs the backend-neutral suite. ConcurrentTransactions is
// false: writes are serialised, so the tests about interleaved transactions
// are moot here (see the package doc).
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, storetest.Harness{
		New:                    func(t *testing.T) eventstore.Store { return openStore(t) },
		ConcurrentTransactions: false,
	})
}
