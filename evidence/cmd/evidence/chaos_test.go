package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/evidence/cluster"
)

func TestChaosLabel(t *testing.T) {
	t.Parallel()
	t.Run("200 agents for ten minutes is the run the issue asks for", func(t *testing.T) {
		t.Parallel()
		l := chaosLabel(200, 2*time.Minute, 10*time.Minute+5*time.Second)
		require.NotContains(t, l, "SHORT RUN")
		require.Contains(t, l, "200 agents")
	})
	t.Run("fewer agents or less time is labelled short", func(t *testing.T) {
		t.Parallel()
		require.Contains(t, chaosLabel(50, 2*time.Minute, 12*time.Minute), "SHORT RUN")
		require.Contains(t, chaosLabel(200, 90*time.Second, 8*time.Minute), "SHORT RUN")
	})
}

func TestClusterLabel(t *testing.T) {
	t.Parallel()
	t.Run("200 agents with 80 s phases is the run the issue asks for", func(t *testing.T) {
		t.Parallel()
		l := clusterLabel(200, 80*time.Second, 9*time.Minute)
		require.NotContains(t, l, "SHORT RUN")
		require.Contains(t, l, "3 NATS nodes (R3)")
	})
	t.Run("fewer agents or shorter phases are labelled short", func(t *testing.T) {
		t.Parallel()
		require.Contains(t, clusterLabel(10, 80*time.Second, 9*time.Minute), "SHORT RUN")
		require.Contains(t, clusterLabel(200, 30*time.Second, 9*time.Minute), "SHORT RUN")
	})
}

func TestAllCurrent(t *testing.T) {
	t.Parallel()
	ok := cluster.ReplicaState{Replicas: 3, Leader: "nats-1", Current: []string{"nats-2", "nats-3"}}
	require.True(t, allCurrent(map[string]cluster.ReplicaState{"JOBS": ok, "EVENTS": ok}))
	for name, bad := range map[string]cluster.ReplicaState{
		"no leader":         {Replicas: 3, Current: []string{"nats-2", "nats-3"}},
		"a follower behind": {Replicas: 3, Leader: "nats-1", Current: []string{"nats-2"}, Lagging: []string{"nats-3"}},
		"a follower absent": {Replicas: 3, Leader: "nats-1", Current: []string{"nats-2"}},
	} {
		require.False(t, allCurrent(map[string]cluster.ReplicaState{"JOBS": ok, "EVENTS": bad}), name)
	}
}
