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
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/api/tripstore"
	"github.com/roadbook/roadbook/services/worker/internal/pipelinetest"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
	"github.com/roadbook/roadbook/services/worker/workerserver"
)

// startCluster runs three embedded JetStream servers clustered over routes,
// every node routed to every other, as production runs NATS, and waits
// until each sees the other two and JetStream is current. JetStream in a
// cluster refuses to start without configured routes, so the route ports
// are chosen first: each is a port the kernel just handed out on :0.
func startCluster(t *testing.T) map[string]*server.Server {
	t.Helper()
	var ports []int
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
		require.NoError(t, ln.Close())
	}
	nodes := map[string]*server.Server{}
	for i, port := range ports {
		name := fmt.Sprintf("n%d", i+1)
		opts := &server.Options{ServerName: name, Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
			NoLog: true, NoSigs: true, Cluster: server.ClusterOpts{Name: "roadbook-test", Host: "127.0.0.1", Port: port}}
		for j, other := range ports {
			if j != i {
				opts.Routes = append(opts.Routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", other)})
			}
		}
		s, err := server.NewServer(opts)
		require.NoError(t, err)
		s.Start()
		t.Cleanup(s.Shutdown)
		nodes[name] = s
	}
	require.Eventually(t, func() bool {
		for _, s := range nodes {
			if s.NumRoutes() < 2 || !s.JetStreamIsCurrent() {
				return false
			}
		}
		return true
	}, time.Minute, 100*time.Millisecond, "the three nodes never formed a JetStream cluster")
	return nodes
}

func TestWorkerOnAThreeNodeCluster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nodes := startCluster(t)
	var urls []string
	for _, s := range nodes {
		urls = append(urls, s.ClientURL())
	}
	nc, err := nats.Connect(strings.Join(urls, ","), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	es, err := postgres.Open(ctx, pgtest.SchemaURL(t))
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
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	trips := tripstore.New(es, nil)
	createAndWait := func(t *testing.T, user string) {
		t.Helper()
		pts := pipelinetest.Line(60.0, 10.0, 60.3, 10.0, 100)
		up, err := pipelinetest.Store(ctx, trips, "line.gpx", 1000, "line", pts, true)
		require.NoError(t, err)
		id, err := pipelinetest.CreateTrip(ctx, trips, user, up, trip.SettingsPatch{})
		require.NoError(t, err)
		rep := waitTerminal(t, es, id)
		require.Equal(t, 1, rep.Counts["StagesComputed"])
		require.Equal(t, 1, rep.Counts["AnalysisCompleted"])
	}

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
