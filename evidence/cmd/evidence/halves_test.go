package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/evidence/cluster"
)

func TestHalves(t *testing.T) {
	t.Parallel()

	t.Run("the cost table divides each half's CPU by the trips created in it", func(t *testing.T) {
		t.Parallel()
		smp := []cluster.Sample{
			{At: 0, Process: "worker-1", CPUSeconds: 1},
			{At: 10 * time.Second, Process: "worker-1", CPUSeconds: 11}, // 10 s in the first half
			{At: 20 * time.Second, Process: "worker-1", CPUSeconds: 41}, // 30 s in the second
		}
		start := reading{at: time.Second, created: 0}
		mid := reading{at: 9 * time.Second, created: 100}
		end := reading{at: 21 * time.Second, created: 200}
		tab := costTable(start, mid, end, smp)
		require.Equal(t, []string{"trips created", "100", "—", "100", "—", "—"}, tab.Rows[0])
		require.Equal(t, []string{"worker-1", "10.0", "100.0", "30.0", "300.0", "3.00"}, tab.Rows[1],
			"samples nearest the readings bound the halves; 3× the CPU per trip shows as 3.00")
	})

	t.Run("the statement table ranks by total time and compares the mean per call", func(t *testing.T) {
		t.Parallel()
		before := map[int64]cluster.QueryStat{1: {ID: 1, Query: "SELECT cheap", Calls: 10, TotalMs: 1}}
		mid := map[int64]cluster.QueryStat{
			1: {ID: 1, Query: "SELECT cheap", Calls: 110, TotalMs: 11},
			2: {ID: 2, Query: "SELECT dear", Calls: 10, TotalMs: 100},
		}
		end := map[int64]cluster.QueryStat{
			1: {ID: 1, Query: "SELECT cheap", Calls: 210, TotalMs: 21},
			2: {ID: 2, Query: "SELECT dear", Calls: 20, TotalMs: 300},
		}
		first, second := cluster.Since(before, mid), cluster.Since(mid, end)
		require.Equal(t, int64(100), first[1].Calls, "only what ran between the readings")
		tab := queryTable(first, second, 5)
		require.Equal(t, "`SELECT dear`", tab.Rows[0][0], "the costliest statement first")
		require.Equal(t, []string{"`SELECT dear`", "10", "10.000", "10", "20.000", "2.00"}, tab.Rows[0])
		require.Equal(t, []string{"`SELECT cheap`", "100", "0.100", "100", "0.100", "1.00"}, tab.Rows[1])
		require.Equal(t, "all statements", tab.Rows[2][0])
	})
}
