package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/roadbook/roadbook/evidence/cluster"
)

// watched are the JetStream streams whose leaders and replicas the cluster
// faults follow: the two the worker creates, and its relay lease bucket
// (services/worker/internal/relay: KV bucket roadbook_relay_lease), which
// must survive a node too or the relay stops publishing.
var watched = []string{"JOBS", "EVENTS", "KV_roadbook_relay_lease"}

// nodeDown is how long a killed node stays down before it is restarted.
const nodeDown = 20 * time.Second

// partitionFor is how long a node is cut off (issue 18: 60 s).
const partitionFor = 60 * time.Second

// clusterFaults are `make chaos-cluster`'s faults on three clustered NATS
// servers with R3 streams. The leader kill and the partition hit the node
// most services are connected to, after JetStream is asked to make it the
// JOBS and EVENTS leader (a step-down with a preferred placement), so one
// fault moves the leaders and the clients at once — the harshest case the
// cluster can meet, and the one where a stale leader could lose or double
// what the relay publishes. The follower kill hits a node leading none of
// the watched streams. Killed nodes come back after nodeDown; the partition
// (its route connections cut at the proxies, its clients left connected to
// it, as in a real partition) lasts partitionFor.
var clusterFaults = []fault{
	{"kill -9 the JOBS and EVENTS leader, restart it after 20 s", 0, func(ctx context.Context, c *cluster.Cluster, log *slog.Logger) (string, error) {
		node, how, err := leadAndServe(ctx, c)
		if err != nil {
			return "", err
		}
		return killNode(ctx, c, log, node, fmt.Sprintf("kill -9 %s, %s", node, how))
	}},
	{"kill -9 a follower, restart it after 20 s", 0, func(ctx context.Context, c *cluster.Cluster, log *slog.Logger) (string, error) {
		before, err := placementNow(ctx, c, -1)
		if err != nil {
			return "", err
		}
		follower, most := "", -1
		for i, n := range c.NATSNodes {
			leads := false
			for _, st := range before {
				leads = leads || st.Leader == n.Name
			}
			if names, _ := c.Clients(ctx, i); !leads && len(names) > most {
				follower, most = n.Name, len(names)
			}
		}
		what := "leading none of JOBS, EVENTS and the relay lease"
		if follower == "" {
			if len(before["JOBS"].Current) == 0 {
				return "", errors.New("JOBS has no current follower to kill")
			}
			follower = before["JOBS"].Current[0]
			what = "a JOBS follower"
		}
		return killNode(ctx, c, log, follower, fmt.Sprintf("kill -9 %s, %s (JOBS led by %s)", follower, what, before["JOBS"].Leader))
	}},
	{"partition the JOBS and EVENTS leader from the other two nodes for 60 s", 0, func(ctx context.Context, c *cluster.Cluster, log *slog.Logger) (string, error) {
		leader, how, err := leadAndServe(ctx, c)
		if err != nil {
			return "", err
		}
		_, li := c.Node(leader)
		via := (li + 1) % len(c.NATSNodes)
		clients := clientsOf(ctx, c, li)
		cut := time.Now()
		severed := c.Partition(li)
		log.Info("partitioned", slog.String("node", leader), slog.Int64("routes cut", severed))
		var b strings.Builder
		fmt.Fprintf(&b, "partition %s, %s, from the other two for %s (%d route connections cut at the proxies; %s, and they stay connected to it)", leader, how, partitionFor, severed, clients)
		moved, err := c.WaitStreams(ctx, via, partitionFor, func(s map[string]cluster.ReplicaState) bool {
			for _, name := range []string{"JOBS", "EVENTS"} {
				if s[name].Leader == "" || s[name].Leader == leader || !slices.Contains(s[name].Lagging, leader) {
					return false
				}
			}
			return true
		}, watched...)
		if err == nil {
			st, _ := c.Streams(ctx, via, time.Second, "JOBS", "EVENTS")
			fmt.Fprintf(&b, "; the other side elected leaders (JOBS %s, EVENTS %s) %.1f s after the cut", st["JOBS"].Leader, st["EVENTS"].Leader, moved.Seconds())
		} else {
			fmt.Fprintf(&b, "; JOBS or EVENTS had no leader on the other side within %s", partitionFor)
		}
		select {
		case <-ctx.Done():
			c.Heal(li)
			return b.String(), ctx.Err()
		case <-time.After(time.Until(cut.Add(partitionFor))):
		}
		c.Heal(li)
		current, err := c.WaitStreams(ctx, via, 3*time.Minute, allCurrent, watched...)
		if err != nil {
			return b.String(), fmt.Errorf("after healing %s: %w", leader, err)
		}
		fmt.Fprintf(&b, "; healed, every replica current %.1f s later", current.Seconds())
		return b.String(), nil // a leader that did not move is a finding, in the text, not a failed injection
	}},
}

// leadAndServe picks the node most services are connected to (ties: the
// one already leading JOBS) and makes it the JOBS and EVENTS leader; it
// returns the node and how it came to be chosen.
func leadAndServe(ctx context.Context, c *cluster.Cluster) (string, string, error) {
	before, err := placementNow(ctx, c, -1)
	if err != nil {
		return "", "", err
	}
	node, most := before["JOBS"].Leader, -1
	if _, i := c.Node(node); i >= 0 {
		names, _ := c.Clients(ctx, i)
		most = len(names)
	}
	for i, n := range c.NATSNodes {
		if names, _ := c.Clients(ctx, i); len(names) > most {
			node, most = n.Name, len(names)
		}
	}
	moved := []string{}
	for _, stream := range []string{"JOBS", "EVENTS"} {
		if before[stream].Leader == node {
			continue
		}
		if err := c.MoveLeader(ctx, stream, node); err != nil {
			return "", "", err
		}
		moved = append(moved, stream)
	}
	how := fmt.Sprintf("leading JOBS and EVENTS, the node with the most service connections (%d)", most)
	if len(moved) > 0 {
		how += "; " + strings.Join(moved, " and ") + " leadership moved there first"
	}
	return node, how, nil
}

// killNode kills node name with SIGKILL, waits for the watched streams to
// have leaders on the other nodes, restarts it after nodeDown and waits for
// every replica to be current again.
func killNode(ctx context.Context, c *cluster.Cluster, log *slog.Logger, name, what string) (string, error) {
	p, i := c.Node(name)
	if p == nil {
		return what, fmt.Errorf("no NATS node is named %q", name)
	}
	via := (i + 1) % len(c.NATSNodes)
	var b strings.Builder
	fmt.Fprintf(&b, "%s; %s", what, clientsOf(ctx, c, i))
	killed := time.Now()
	if err := p.Kill9(); err != nil {
		return what, err
	}
	log.Info("killed", slog.String("node", name))
	led, err := c.WaitStreams(ctx, via, nodeDown, func(s map[string]cluster.ReplicaState) bool {
		for _, st := range s {
			if st.Leader == "" || st.Leader == name {
				return false
			}
		}
		return true
	}, watched...)
	if err == nil {
		fmt.Fprintf(&b, "; every watched stream led by a live node %.1f s after the kill", led.Seconds())
	} else {
		fmt.Fprintf(&b, "; a watched stream was still without a live leader %s after the kill", nodeDown)
	}
	select {
	case <-ctx.Done():
		return b.String(), ctx.Err()
	case <-time.After(time.Until(killed.Add(nodeDown))):
	}
	if err := c.StartNode(ctx, i); err != nil {
		return b.String(), err
	}
	current, err := c.WaitStreams(ctx, via, 3*time.Minute, allCurrent, watched...)
	if err != nil {
		return b.String(), fmt.Errorf("after restarting %s: %w", name, err)
	}
	fmt.Fprintf(&b, "; restarted after %s, every replica current %.1f s later", nodeDown, current.Seconds())
	return b.String(), nil // leaders that did not move in time are a finding, in the text
}

// clientsOf says which services are connected to node i.
func clientsOf(ctx context.Context, c *cluster.Cluster, i int) string {
	names, err := c.Clients(ctx, i)
	switch {
	case err != nil:
		return "its clients unknown (" + err.Error() + ")"
	case len(names) == 0:
		return "no service connected to it"
	}
	return "its clients: " + strings.Join(names, ", ")
}

// allCurrent: every watched stream has a leader and all its followers are
// caught up.
func allCurrent(s map[string]cluster.ReplicaState) bool {
	for _, st := range s {
		if st.Leader == "" || len(st.Lagging) > 0 || len(st.Current) != st.Replicas-1 {
			return false
		}
	}
	return true
}

// placementNow asks the nodes in turn (skipping skip) until one answers.
func placementNow(ctx context.Context, c *cluster.Cluster, skip int) (map[string]cluster.ReplicaState, error) {
	var errs []error
	for i := range c.NATSNodes {
		if i == skip {
			continue
		}
		st, err := c.Streams(ctx, i, 2*time.Second, watched...)
		if err == nil {
			return st, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// streamPlacement describes the watched streams at the start of a run:
// replicas as configured (3 is what the run is about) and who leads.
func streamPlacement(ctx context.Context, c *cluster.Cluster) []string {
	st, err := placementNow(ctx, c, -1)
	if err != nil {
		return []string{"unknown: " + err.Error()}
	}
	var out []string
	for _, name := range watched {
		s := st[name]
		out = append(out, fmt.Sprintf("%s R%d led by %s, %d followers current", name, s.Replicas, s.Leader, len(s.Current)))
	}
	return out
}

// clusterLabel says how big the cluster run was: the issue asks for 200
// agents; the default phase (80 s) puts each fault inside 2 minutes of load.
func clusterLabel(agents int, phase, total time.Duration) string {
	l := fmt.Sprintf("%d agents, %s of load around each fault, %s in all, 3 NATS nodes (R3), 2 worker processes", agents, phase+phase/2, total)
	if agents < 200 || phase < 80*time.Second {
		l = "SHORT RUN: " + l + " — not 200 agents with 80 s phases"
	}
	return l
}

// clusterNote says what the system under test was in a cluster run.
const clusterNote = "NATS: three natsd processes (JetStream on file storage) clustered over routes, every route between two nodes through a TCP proxy in the evidence process (a partition cuts a node's proxies both ways; implicit routes are refused by advertising a sink); the workers run with ROADBOOK_STREAM_REPLICAS=3 and every service gets all three client URLs."
