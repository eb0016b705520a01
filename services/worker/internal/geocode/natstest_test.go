package geocode_test

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/testkit"
)

// connect opens one more connection to s (one per replica or client).
func connect(t *testing.T, s *testkit.NATSServer) *nats.Conn {
	t.Helper()
	nc, err := testkit.Connect(s.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}
