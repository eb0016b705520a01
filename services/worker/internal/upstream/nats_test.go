package upstream

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/testkit"
)

// connectJS opens one connection (one "replica") to srv.
func connectJS(t *testing.T, srv *testkit.NATSServer) jetstream.JetStream {
	t.Helper()
	nc, err := testkit.Connect(srv.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}
