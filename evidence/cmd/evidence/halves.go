package main

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"time"

	"github.com/roadbook/roadbook/evidence/agent"
	"github.com/roadbook/roadbook/evidence/cluster"
	"github.com/roadbook/roadbook/evidence/report"
)

// reading is what the soak notes at the start, the middle and the end of
// the load: when, how many trips the agents had created, and PostgreSQL's
// cumulative per-statement costs. Two readings give one half of the run, so
// the soak can say whether anything costs more per unit late in a run than
// early, as the store grows (docs/CAPACITY.md §4 asked).
type reading struct {
	at      time.Duration
	created int
	queries map[int64]cluster.QueryStat
}

// halves takes the start reading now and the middle one after d/2; the
// returned function takes the end reading and gives all three (ok is false
// when the run ended before its middle or the statistics were unreadable).
func halves(ctx context.Context, log *slog.Logger, c *cluster.Cluster, ledger *agent.Ledger, d time.Duration) func() (start, mid, end reading, ok bool) {
	began := time.Now()
	read := func() reading {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		q, err := c.QueryStats(rctx)
		if err != nil {
			log.Warn("per-query statistics unavailable", slog.Any("error", err))
		}
		return reading{at: time.Since(began), created: ledger.CreatedCount(), queries: q}
	}
	first := read()
	middle := make(chan *reading, 1)
	go func() {
		t := time.NewTimer(d / 2)
		defer t.Stop()
		select {
		case <-t.C:
			r := read()
			middle <- &r
		case <-ctx.Done():
			middle <- nil
		}
	}()
	return func() (reading, reading, reading, bool) {
		m := <-middle
		last := read()
		if m == nil || first.queries == nil || m.queries == nil || last.queries == nil {
			return reading{}, reading{}, reading{}, false
		}
		return first, *m, last, true
	}
}

// costTable is each process's CPU per trip created in either half of the
// load (CPU from the 10-second samples nearest each reading).
func costTable(start, mid, end reading, smp []cluster.Sample) report.Table {
	t := report.Table{Title: "Cost per trip created, first and second half of the load (CPU from the samples nearest each half's bounds; postgres is the postmaster and its backends)",
		Header: []string{"process", "CPU s 1st half", "ms per trip 1st", "CPU s 2nd half", "ms per trip 2nd", "2nd / 1st"}}
	trips1, trips2 := mid.created-start.created, end.created-mid.created
	t.Rows = append(t.Rows, []string{"trips created", fmt.Sprint(trips1), "—", fmt.Sprint(trips2), "—", "—"})
	cpuAt := map[string]map[time.Duration]float64{}
	for _, s := range smp {
		if cpuAt[s.Process] == nil {
			cpuAt[s.Process] = map[time.Duration]float64{}
		}
		cpuAt[s.Process][s.At] = s.CPUSeconds
	}
	procs := make([]string, 0, len(cpuAt))
	for p := range cpuAt {
		procs = append(procs, p)
	}
	sort.Strings(procs)
	nearest := func(at map[time.Duration]float64, want time.Duration) float64 {
		best, bestD := 0.0, time.Duration(math.MaxInt64)
		for a, v := range at {
			if d := (a - want).Abs(); d < bestD {
				best, bestD = v, d
			}
		}
		return best
	}
	per := func(cpu float64, trips int) string {
		if trips <= 0 {
			return "—"
		}
		return fmt.Sprintf("%.1f", cpu*1000/float64(trips))
	}
	for _, p := range procs {
		c0, c1, c2 := nearest(cpuAt[p], start.at), nearest(cpuAt[p], mid.at), nearest(cpuAt[p], end.at)
		h1, h2 := c1-c0, c2-c1
		ratio := "—"
		if h1 > 0 && trips1 > 0 && trips2 > 0 {
			ratio = fmt.Sprintf("%.2f", (h2/float64(trips2))/(h1/float64(trips1)))
		}
		t.Rows = append(t.Rows, []string{p, fmt.Sprintf("%.1f", h1), per(h1, trips1), fmt.Sprintf("%.1f", h2), per(h2, trips2), ratio})
	}
	return t
}
