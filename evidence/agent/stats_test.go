package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestStats(t *testing.T) {
	t.Parallel()
	s := NewStats()
	for i := 1; i <= 100; i++ {
		code := ""
		if i%10 == 0 {
			code = "version_conflict"
		}
		s.record("get_trip", time.Duration(i)*time.Millisecond, code, fmt.Sprintf("conflict %d", i))
	}
	s.record("create_trip", time.Second, "protocol", "connection reset")
	rows := s.Rows()

	t.Run("rows are per tool, sorted", func(t *testing.T) {
		t.Parallel()
		require.Len(t, rows, 2)
		require.Equal(t, "create_trip", rows[0].Tool)
		require.Equal(t, "get_trip", rows[1].Tool)
	})
	t.Run("quantiles are nearest-rank over the calls", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 50*time.Millisecond, rows[1].P50)
		require.Equal(t, 99*time.Millisecond, rows[1].P99)
		require.Equal(t, 100*time.Millisecond, rows[1].Max)
	})
	t.Run("outcomes are counted by code", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "ok=90 version_conflict=10", CodesString(rows[1].Codes))
		require.Equal(t, "protocol=1", CodesString(rows[0].Codes))
	})
	t.Run("a nil collector records nothing and does not panic", func(t *testing.T) {
		t.Parallel()
		var n *Stats
		n.record("x", time.Second, "", "")
	})
	t.Run("the first failures of each tool and code are kept with their message, in the order they came", func(t *testing.T) {
		t.Parallel()
		fs := s.Failures("version_conflict", "protocol")
		require.Len(t, fs, FailureSamples+1, "three of ten conflicts, the one protocol error")
		var msgs []string
		for _, f := range fs {
			msgs = append(msgs, f.Tool+": "+f.Code+": "+f.Message)
		}
		require.Equal(t, []string{"get_trip: version_conflict: conflict 10", "get_trip: version_conflict: conflict 20",
			"get_trip: version_conflict: conflict 30", "create_trip: protocol: connection reset"}, msgs)
		require.Equal(t, 10*time.Millisecond, fs[0].Latency)
		require.Empty(t, s.Failures("internal"), "only the codes asked for")
	})
}

func TestTolerated(t *testing.T) {
	t.Parallel()
	s := &Script{Tolerate: map[string]bool{"labels": true}}
	require.True(t, s.tolerated("a computation is still running: labels"))
	require.False(t, s.tolerated("a computation is still running: labels, analysis"))
	require.False(t, s.tolerated("no colon here"))
	require.False(t, (&Script{}).tolerated("a computation is still running: labels"))
}

func TestShift(t *testing.T) {
	t.Parallel()
	out := shift(`<trkpt lat="45.5" lon="179.9"><ele>1</ele></trkpt><wpt lat="-89.95" lon="7"/>`, 0.5, 0.2)
	require.Equal(t, `<trkpt lat="46.0000000" lon="-179.9000000"><ele>1</ele></trkpt><wpt lat="-89.4500000" lon="7.2000000"/>`, out)
}
