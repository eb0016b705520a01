package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// TestNATSClusterPartition proves the harness's cluster is what the chaos
// run says it is: three natsd processes that form a JetStream cluster only
// through the route proxies, so Partition really isolates a node — core
// NATS messages stop crossing, the R3 stream elects a leader on the other
// side and goes on taking writes — and Heal brings it back current with
// nothing lost or doubled.
func TestNATSClusterPartition(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, err := Root()
	require.NoError(t, err)
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "natsd"), "./evidence/cmd/natsd")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "logs"), 0o755))
	c := &Cluster{Dir: dir, log: slog.New(slog.DiscardHandler)}
	t.Cleanup(c.Close)
	require.NoError(t, c.startNATS(ctx, bin, 3))
	require.Len(t, c.NATSNodes, 3)

	nc, err := nats.Connect(c.NATSURL, nats.MaxReconnects(-1))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}, Replicas: 3, Storage: jetstream.FileStorage})
	require.NoError(t, err)
	publish := func(t *testing.T, js jetstream.JetStream, from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			require.Eventually(t, func() bool {
				_, err := js.Publish(ctx, "t.x", []byte("m"), jetstream.WithMsgID(fmt.Sprint(i)))
				return err == nil
			}, time.Minute, 100*time.Millisecond, "publish %d", i)
		}
	}
	publish(t, js, 0, 50)
	st, err := c.Streams(ctx, 0, 5*time.Second, "T")
	require.NoError(t, err)
	first, _ := c.Node(st["T"].Leader)
	require.NotNil(t, first)
	// Hand the leadership to another node, as the chaos faults do to hit a
	// node that leads and holds clients.
	target := c.NATSNodes[0].Name
	if target == first.Name {
		target = c.NATSNodes[1].Name
	}
	require.NoError(t, c.MoveLeader(ctx, "T", target))
	st, err = c.Streams(ctx, 0, 5*time.Second, "T")
	require.NoError(t, err)
	leader := st["T"].Leader
	require.Equal(t, target, leader, "the leadership moved where it was asked to")
	_, li := c.Node(leader)
	require.GreaterOrEqual(t, li, 0, "the leader %q is one of the harness's nodes", leader)
	other := (li + 1) % 3

	// Clients connected to the node about to be isolated, and to another.
	onLeader, err := nats.Connect(c.NodeURLs[li], nats.NoReconnect(), nats.Name("probe-client"))
	require.NoError(t, err)
	t.Cleanup(onLeader.Close)
	names, err := c.Clients(ctx, li)
	require.NoError(t, err)
	require.Contains(t, names, "probe-client", "the monitoring page names the node's clients")
	onOther, err := nats.Connect(c.NodeURLs[other], nats.NoReconnect())
	require.NoError(t, err)
	t.Cleanup(onOther.Close)
	jsOther, err := jetstream.New(onOther)
	require.NoError(t, err)
	sub, err := onLeader.SubscribeSync("probe")
	require.NoError(t, err)
	require.NoError(t, onLeader.Flush())
	require.Eventually(t, func() bool {
		_ = onOther.Publish("probe", []byte("before"))
		_, err := sub.NextMsg(200 * time.Millisecond)
		return err == nil
	}, 30*time.Second, 10*time.Millisecond, "core NATS crosses the routes before the partition")

	require.Positive(t, c.Partition(li), "route connections were cut")
	t.Run("an isolated node receives nothing published on the others", func(t *testing.T) {
		for range 20 { // drain anything in flight before the cut
			if _, err := sub.NextMsg(50 * time.Millisecond); err != nil {
				break
			}
		}
		require.NoError(t, onOther.Publish("probe", []byte("during")))
		require.NoError(t, onOther.Flush())
		_, err := sub.NextMsg(2 * time.Second)
		require.ErrorIs(t, err, nats.ErrTimeout)
	})
	t.Run("the other two elect a new leader and take writes", func(t *testing.T) {
		_, err := c.WaitStreams(ctx, other, time.Minute, func(s map[string]ReplicaState) bool {
			return s["T"].Leader != "" && s["T"].Leader != leader && slices.Contains(s["T"].Lagging, leader)
		}, "T")
		require.NoError(t, err)
		publish(t, jsOther, 50, 100)
	})
	c.Heal(li)
	t.Run("healed, the node catches up and the stream holds every message once", func(t *testing.T) {
		_, err := c.WaitStreams(ctx, other, 2*time.Minute, func(s map[string]ReplicaState) bool {
			return len(s["T"].Current) == 2 && len(s["T"].Lagging) == 0
		}, "T")
		require.NoError(t, err)
		publish(t, jsOther, 100, 110)
		stream, err := jsOther.Stream(ctx, "T")
		require.NoError(t, err)
		info, err := stream.Info(ctx)
		require.NoError(t, err)
		require.Equal(t, uint64(110), info.State.Msgs)
		require.Eventually(t, func() bool {
			_ = onOther.Publish("probe", []byte("after"))
			_, err := sub.NextMsg(200 * time.Millisecond)
			return err == nil
		}, time.Minute, 10*time.Millisecond, "core NATS crosses again after the heal")
	})
}
