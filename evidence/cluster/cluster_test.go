package cluster

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProc(t *testing.T) {
	t.Parallel()
	p := &Proc{Name: "sleeper", Path: "/bin/sleep", Args: []string{"30"}, Log: filepath.Join(t.TempDir(), "log")}
	require.NoError(t, p.Start())
	require.True(t, p.Running())
	require.Error(t, p.Start(), "a running process is not started twice")

	t.Run("kill -9 ends it and it can start again", func(t *testing.T) {
		require.NoError(t, p.Kill9())
		<-p.Done()
		require.False(t, p.Running())
		require.NoError(t, p.Start())
		require.True(t, p.Running())
		require.NoError(t, p.Stop(syscall.SIGTERM, 5*time.Second))
		require.False(t, p.Running())
	})
}

func TestSampling(t *testing.T) {
	t.Parallel()
	// Burn a little CPU so the counter has moved.
	deadline := time.Now().Add(100 * time.Millisecond)
	for time.Now().Before(deadline) {
	}
	pid := os.Getpid()
	require.Positive(t, rssKiB(pid), "VmRSS of this process")
	require.Positive(t, cpuSeconds(pid), "100 ms of busy loop shows as CPU time")
	own := cpuSeconds(pid) // read first: CPU time only grows, so the tree's, read after, is at least this
	require.GreaterOrEqual(t, CPUOfTree(pid), own)
	require.Zero(t, rssKiB(0), "no such process")
}
