package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore/feedwake"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
	"github.com/roadbook/roadbook/testkit"
)

// rig is a store of its own and an embedded NATS with the streams made:
// what every relay test starts from.
type rig struct {
	es   *postgres.Store
	js   jetstream.JetStream
	nc   *nats.Conn
	nats *testkit.NATSServer
}

func newRig(t *testing.T) rig {
	t.Helper()
	return newRigWith(t, stream.DefaultOptions())
}

// newRigWith is newRig with the streams made from o.
func newRigWith(t *testing.T, o stream.Options) rig {
	t.Helper()
	es := testkit.Store(t)
	n, nc := testkit.NATS(t)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.NoError(t, stream.Ensure(context.Background(), js, o))
	return rig{es: es, js: js, nc: nc, nats: n}
}

// lastSeq is the last sequence of the named stream.
func (g rig) lastSeq(t *testing.T, name string) uint64 {
	t.Helper()
	s, err := g.js.Stream(context.Background(), name)
	require.NoError(t, err)
	return s.CachedInfo().State.LastSeq
}

// run starts a relay on the rig (cfg's Store, JS and Lease are filled in)
// and waits until it holds the lease. stop ends it and returns once Run
// returned; the test's cleanup stops it too.
func (g rig) run(t *testing.T, cfg relay.Config) (r *relay.Relay, stop func()) {
	t.Helper()
	ctx := context.Background()
	l, err := relay.OpenLease(ctx, g.js, relay.DefaultLeaseBucket, "a", 10*time.Second)
	require.NoError(t, err)
	cfg.Store, cfg.JS, cfg.Lease = g.es, g.js, l
	r, err = relay.New(cfg)
	require.NoError(t, err)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); require.NoError(t, r.Run(rctx)) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	require.Eventually(t, r.Active, 10*time.Second, 10*time.Millisecond)
	return r, stop
}

// otherProcess is what another process sees of the rig: a store on the same
// schema with a pool of its own, and a NATS connection of its own.
func (g rig) otherProcess(t *testing.T) (*postgres.Store, *nats.Conn) {
	t.Helper()
	es := testkit.StoreAt(t, g.es.Pool().Config().ConnString())
	nc, err := testkit.Connect(g.nats.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return es, nc
}

// listener hears the other processes' announcements, as a worker does
// (feedwake.Listener, for relay.Config.Remote); closed when t ends.
func (g rig) listener(t *testing.T) *feedwake.Listener {
	t.Helper()
	l, err := feedwake.Listen(g.nc, "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// announcingProcess is otherProcess's store with its commits announced
// over its own connection, as `roadbook api` does (feedwake.Announcer),
// until t ends.
func (g rig) announcingProcess(t *testing.T) *postgres.Store {
	t.Helper()
	other, nc := g.otherProcess(t)
	a, err := feedwake.NewAnnouncer(nc, other)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return other
}
