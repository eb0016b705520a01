package workerserver_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/tripstore"
)

// testCluster is three embedded JetStream servers clustered over routes
// that run through proxies, so partition can cut one node off.
type testCluster struct {
	nodes map[string]*server.Server
	// proxies[i][j] carries node i's routes to node j.
	proxies [3][3]*routeProxy
}

// partition cuts node i's routes to and from the other two (cut=true), or
// restores them.
func (c *testCluster) partition(i int, cut bool) {
	for j := range 3 {
		for _, p := range []*routeProxy{c.proxies[i][j], c.proxies[j][i]} {
			if p != nil {
				p.setCut(cut)
			}
		}
	}
}

// startCluster runs three embedded JetStream servers (n1, n2, n3) clustered
// as production runs NATS, every node routed to every other through a
// proxy, and waits until each sees the other two and JetStream is current.
// JetStream in a cluster refuses to start without configured routes, so
// the route ports are chosen first: each is a port the kernel just handed
// out on :0.
func startCluster(t *testing.T) *testCluster {
	t.Helper()
	var ports []int
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
		require.NoError(t, ln.Close())
	}
	c := &testCluster{nodes: map[string]*server.Server{}}
	for i := range 3 {
		for j := range 3 {
			if i != j {
				c.proxies[i][j] = newRouteProxy(t, fmt.Sprintf("127.0.0.1:%d", ports[j]))
			}
		}
	}
	for i, port := range ports {
		name := fmt.Sprintf("n%d", i+1)
		opts := &server.Options{ServerName: name, Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
			NoLog: true, NoSigs: true, Cluster: server.ClusterOpts{Name: "roadbook-test", Host: "127.0.0.1", Port: port, Advertise: sinkAddr(t)}}
		for j := range 3 {
			if j != i {
				opts.Routes = append(opts.Routes, &url.URL{Scheme: "nats-route", Host: c.proxies[i][j].addr()})
			}
		}
		s, err := server.NewServer(opts)
		require.NoError(t, err)
		s.Start()
		t.Cleanup(s.Shutdown)
		c.nodes[name] = s
	}
	require.Eventually(t, func() bool {
		for _, s := range c.nodes {
			if s.NumRoutes() < 2 || !s.JetStreamIsCurrent() {
				return false
			}
		}
		return true
	}, time.Minute, 100*time.Millisecond, "the three nodes never formed a JetStream cluster")
	return c
}

// clusterWorker is a worker with R3 streams on a fresh schema, connected
// by nc, and a way to push a trip through it.
type clusterWorker struct {
	srv   *workerserver.Server
	store *postgres.Store
	trips *tripstore.Store
}

func startClusterWorker(t *testing.T, nc *nats.Conn) *clusterWorker {
	t.Helper()
	ctx := context.Background()
	es, err := postgres.Open(ctx, testkit.SchemaURL(t))
	require.NoError(t, err)
	t.Cleanup(es.Close)
	streams := workerserver.DefaultStreamOptions()
	streams.Replicas = 3
	srv, err := workerserver.New(workerserver.Config{Store: es, NATS: nc, Concurrency: 2, LeaseTTL: 2 * time.Second, Streams: &streams,
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	require.NoError(t, err)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(rctx) }()
	t.Cleanup(func() { cancel(); <-done })
	require.Eventually(t, srv.Ready, time.Minute, 50*time.Millisecond, "the worker never became ready on the cluster")
	return &clusterWorker{srv: srv, store: es, trips: tripstore.New(es, nil)}
}

// createAndWait creates a 33 km trip and waits until its stages and its
// analysis are recorded, once each.
func (w *clusterWorker) createAndWait(t *testing.T, user string) {
	t.Helper()
	ctx := context.Background()
	pts := pipelinetest.Line(60.0, 10.0, 60.3, 10.0, 100)
	up, err := pipelinetest.Store(ctx, w.trips, "line.gpx", 1000, "line", pts, true)
	require.NoError(t, err)
	id, err := pipelinetest.CreateTrip(ctx, w.trips, user, up, trip.SettingsPatch{})
	require.NoError(t, err)
	rep := waitTerminal(t, w.store, id)
	require.Equal(t, 1, rep.Counts["StagesComputed"])
	require.Equal(t, 1, rep.Counts["AnalysisCompleted"])
}

func TestWorkerOnAThreeNodeCluster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nodes := startCluster(t).nodes
	var urls []string
	for _, s := range nodes {
		urls = append(urls, s.ClientURL())
	}
	nc, err := nats.Connect(strings.Join(urls, ","), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	w := startClusterWorker(t, nc)
	createAndWait := w.createAndWait
	js, err := jetstream.New(nc)
	require.NoError(t, err)

	t.Run("the streams and the relay lease bucket are created with three replicas", func(t *testing.T) {
		for _, name := range []string{"EVENTS", "JOBS", "KV_" + relay.DefaultLeaseBucket} {
			st, err := js.Stream(ctx, name)
			require.NoError(t, err, name)
			info, err := st.Info(ctx)
			require.NoError(t, err, name)
			require.Equal(t, 3, info.Config.Replicas, name)
			require.NotNil(t, info.Cluster, name)
			require.Len(t, info.Cluster.Replicas, 2, "%s has a leader and two followers", name)
		}
		createAndWait(t, "rider-before")
	})

	t.Run("the pipeline goes on when the JOBS leader's server shuts down", func(t *testing.T) {
		st, err := js.Stream(ctx, "JOBS")
		require.NoError(t, err)
		info, err := st.Info(ctx)
		require.NoError(t, err)
		leader := info.Cluster.Leader
		require.Contains(t, nodes, leader)
		nodes[leader].Shutdown()
		nodes[leader].WaitForShutdown()
		require.Eventually(t, func() bool {
			info, err := st.Info(ctx)
			return err == nil && info.Cluster != nil && info.Cluster.Leader != "" && info.Cluster.Leader != leader
		}, time.Minute, 200*time.Millisecond, "JOBS never elected a new leader after %s left", leader)
		createAndWait(t, "rider-after")
	})
}

func TestWorkerLeavesANATSServerCutOffFromItsCluster(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	// The worker's connection starts on n1 (no shuffling), the node the
	// test then cuts off; its TCP connection to n1 stays up throughout.
	nc, err := nats.Connect(strings.Join([]string{c.nodes["n1"].ClientURL(), c.nodes["n2"].ClientURL(), c.nodes["n3"].ClientURL()}, ","),
		nats.DontRandomize(), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	require.Equal(t, c.nodes["n1"].ClientURL(), nc.ConnectedUrl())
	w := startClusterWorker(t, nc)
	w.createAndWait(t, "rider-before")

	c.partition(0, true)
	t.Cleanup(func() { c.partition(0, false) })
	// The partition outlasts the wait below (90 s): the trip completes only
	// if the worker leaves n1 for a node on the side with quorum.
	w.createAndWait(t, "rider-during")
	require.NotEqual(t, c.nodes["n1"].ClientURL(), nc.ConnectedUrl(), "the worker moved off the cut-off node")
}
