package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// startNATS starts one NATS server, or three clustered. In a cluster,
// node i reaches node j only through routes[i][j], a Proxy to j's route
// port, and advertises a sink for implicit routes, so no route between two
// nodes bypasses a proxy; Partition can then isolate a node completely
// while its clients stay connected to it.
func (c *Cluster) startNATS(ctx context.Context, bin string, nodes int) error {
	switch nodes {
	case 0, 1:
		nodes = 1
	case 3:
	default:
		return fmt.Errorf("cluster: NATSNodes must be 1 or 3, not %d", nodes)
	}
	// The nodes' ports are held open until the proxies and sinks have
	// bound theirs (on :0), so the kernel cannot hand one of them out twice.
	var held []net.Listener
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	reserve := func() (int, error) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		held = append(held, l)
		return l.Addr().(*net.TCPAddr).Port, nil
	}
	clientPorts, routePorts := make([]int, nodes), make([]int, nodes)
	c.monitors = make([]int, nodes)
	for i := range nodes {
		var err error
		if clientPorts[i], err = reserve(); err != nil {
			return err
		}
		if routePorts[i], err = reserve(); err != nil {
			return err
		}
		if c.monitors[i], err = reserve(); err != nil {
			return err
		}
		c.NodeURLs = append(c.NodeURLs, "nats://127.0.0.1:"+strconv.Itoa(clientPorts[i]))
	}
	if nodes > 1 {
		c.routes = make([][]*Proxy, nodes)
		for i := range nodes {
			c.routes[i] = make([]*Proxy, nodes)
			for j := range nodes {
				if i == j {
					continue
				}
				p, err := NewProxy("127.0.0.1:" + strconv.Itoa(routePorts[j]))
				if err != nil {
					return err
				}
				c.routes[i][j] = p
			}
			s, err := sink()
			if err != nil {
				return err
			}
			c.sinks = append(c.sinks, s)
		}
	}
	for _, l := range held {
		_ = l.Close()
	}
	held = nil
	for i := range nodes {
		name := "nats"
		if nodes > 1 {
			name = fmt.Sprintf("nats-%d", i+1)
		}
		args := []string{"-port", strconv.Itoa(clientPorts[i]), "-dir", filepath.Join(c.Dir, "jetstream", name), "-http-port", strconv.Itoa(c.monitors[i])}
		if nodes > 1 {
			var routes []string
			for j, p := range c.routes[i] {
				if j != i {
					routes = append(routes, "nats-route://"+p.Addr())
				}
			}
			args = append(args, "-name", name, "-cluster-port", strconv.Itoa(routePorts[i]),
				"-routes", strings.Join(routes, ","), "-cluster-advertise", c.sinks[i].Addr().String())
		}
		p := &Proc{Name: name, Path: filepath.Join(bin, "natsd"), Args: args, Log: filepath.Join(c.Dir, "logs", name+".log")}
		if err := p.Start(); err != nil {
			return err
		}
		c.NATSNodes = append(c.NATSNodes, p)
	}
	c.NATS = c.NATSNodes[0]
	c.NATSURL = strings.Join(c.NodeURLs, ",")
	for _, u := range c.NodeURLs {
		if err := waitTCP(ctx, strings.TrimPrefix(u, "nats://"), 2*time.Minute); err != nil {
			return fmt.Errorf("nats at %s: %w", u, err)
		}
	}
	if nodes > 1 {
		if err := c.waitJetStream(ctx, 2*time.Minute); err != nil {
			return err
		}
		c.log.Info("NATS cluster ready", slog.String("urls", c.NATSURL))
	}
	return nil
}

// waitJetStream waits until the cluster can place a replicated stream: a
// meta leader is elected and the three nodes agree (a probe stream at R3 is
// created and deleted), so the services do not start into an election.
func (c *Cluster) waitJetStream(ctx context.Context, timeout time.Duration) error {
	nc, err := nats.Connect(c.NATSURL)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := js.CreateOrUpdateStream(rctx, jetstream.StreamConfig{Name: "EVIDENCE_PROBE", Subjects: []string{"evidence.probe"},
			Replicas: len(c.NATSNodes), Storage: jetstream.MemoryStorage})
		if err == nil {
			err = js.DeleteStream(rctx, "EVIDENCE_PROBE")
		}
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the NATS cluster cannot place an R%d stream after %s: %w", len(c.NATSNodes), timeout, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Node is the NATS node named name ("nats-2"), as JetStream names stream
// leaders, and its index; nil when there is none.
func (c *Cluster) Node(name string) (*Proc, int) {
	for i, n := range c.NATSNodes {
		if n.Name == name {
			return n, i
		}
	}
	return nil, -1
}

// StartNode starts node i again on its data directory and ports, and waits
// for its client port.
func (c *Cluster) StartNode(ctx context.Context, i int) error {
	if err := c.NATSNodes[i].Start(); err != nil {
		return err
	}
	return waitTCP(ctx, strings.TrimPrefix(c.NodeURLs[i], "nats://"), 2*time.Minute)
}

// Partition cuts every route between node i and the others, both ways; its
// clients stay connected to it. Heal restores them.
func (c *Cluster) Partition(i int) (severed int64) {
	for j := range c.NATSNodes {
		for _, p := range []*Proxy{c.routes[i][j], c.routes[j][i]} {
			if p != nil {
				before := p.Severed.Load()
				p.Cut()
				severed += p.Severed.Load() - before
			}
		}
	}
	return severed
}

// Heal undoes Partition(i): the nodes' own reconnects re-form the routes.
func (c *Cluster) Heal(i int) {
	for j := range c.NATSNodes {
		for _, p := range []*Proxy{c.routes[i][j], c.routes[j][i]} {
			if p != nil {
				p.Restore()
			}
		}
	}
}

// Clients names the client connections node i holds (the services name
// theirs: roadbook-api, roadbook-worker), from its /connz monitoring page,
// sorted; connections without a name are left out.
func (c *Cluster) Clients(ctx context.Context, i int) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/connz?limit=1024", c.monitors[i]), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var connz struct {
		Connections []struct {
			Name string `json:"name"`
		} `json:"connections"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&connz); err != nil {
		return nil, fmt.Errorf("connz of %s: %w", c.NATSNodes[i].Name, err)
	}
	var names []string
	for _, conn := range connz.Connections {
		if conn.Name != "" {
			names = append(names, conn.Name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// ReplicaState is one stream's placement as JetStream reports it.
type ReplicaState struct {
	// Replicas is the configured count; Leader the leading node's name.
	Replicas int
	Leader   string
	// Current and Lagging name the followers caught up or not (offline
	// ones count as lagging).
	Current, Lagging []string
}

// Streams asks node i (only) for the placement of each named stream; a
// node without quorum, or mid-election, answers an error after timeout.
func (c *Cluster) Streams(ctx context.Context, i int, timeout time.Duration, names ...string) (map[string]ReplicaState, error) {
	nc, err := nats.Connect(c.NodeURLs[i], nats.NoReconnect(), nats.Timeout(timeout))
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	out := map[string]ReplicaState{}
	for _, name := range names {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		st, err := js.Stream(rctx, name)
		var info *jetstream.StreamInfo
		if err == nil {
			info, err = st.Info(rctx)
		}
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s via %s: %w", name, c.NATSNodes[i].Name, err)
		}
		rs := ReplicaState{Replicas: info.Config.Replicas}
		if info.Cluster != nil {
			rs.Leader = info.Cluster.Leader
			for _, p := range info.Cluster.Replicas {
				if p.Current && !p.Offline {
					rs.Current = append(rs.Current, p.Name)
				} else {
					rs.Lagging = append(rs.Lagging, p.Name)
				}
			}
		}
		out[name] = rs
	}
	return out, nil
}

// MoveLeader asks JetStream to hand stream's leadership to node to (a
// leader step-down with a preferred placement), so a fault can hit a node
// that both leads and holds clients, and waits until it does.
func (c *Cluster) MoveLeader(ctx context.Context, stream, to string) error {
	_, i := c.Node(to)
	if i < 0 {
		return fmt.Errorf("no NATS node is named %q", to)
	}
	nc, err := nats.Connect(c.NATSURL)
	if err != nil {
		return err
	}
	defer nc.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := c.Streams(ctx, i, 2*time.Second, stream)
		if err == nil && st[stream].Leader == to {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is not led by %s after a minute of asking: %v", stream, to, err)
		}
		if err == nil && len(st[stream].Lagging) == 0 {
			body, _ := json.Marshal(map[string]any{"placement": map[string]string{"preferred": to}})
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, _ = nc.RequestWithContext(rctx, "$JS.API.STREAM.LEADER.STEPDOWN."+stream, body)
			cancel()
		}
		time.Sleep(time.Second)
	}
}

// ErrNotSettled is WaitStreams' answer when the condition was not met in time.
var ErrNotSettled = errors.New("cluster: streams did not settle in time")

// WaitStreams polls node i until ok holds for the placement of the named
// streams, and returns how long that took.
func (c *Cluster) WaitStreams(ctx context.Context, i int, timeout time.Duration, ok func(map[string]ReplicaState) bool, names ...string) (time.Duration, error) {
	start := time.Now()
	var last error
	for time.Since(start) < timeout {
		st, err := c.Streams(ctx, i, time.Second, names...)
		if err == nil && ok(st) {
			return time.Since(start), nil
		}
		last = err
		select {
		case <-ctx.Done():
			return time.Since(start), ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return time.Since(start), fmt.Errorf("%w (%s; last error: %v)", ErrNotSettled, timeout, last)
}
