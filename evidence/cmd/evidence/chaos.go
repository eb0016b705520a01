package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/roadbook/roadbook/evidence/agent"
	"github.com/roadbook/roadbook/evidence/audit"
	"github.com/roadbook/roadbook/evidence/cluster"
	"github.com/roadbook/roadbook/evidence/report"
)

type chaosOptions struct {
	agents int
	phase  time.Duration
	// natsNodes is 1 (the four faults of `make chaos`) or 3 (the cluster
	// faults of `make chaos-cluster`, chaos_cluster.go).
	natsNodes int
}

// fault is one injected failure: do runs while the agents keep going.
type fault struct {
	name string
	// shift moves the agents' routes to fresh coordinates (degrees), so
	// labels need the geocoder rather than its cache.
	shift float64
	// do injects the fault; a non-empty string it returns is the fault as
	// it happened (which node, what NATS did) and replaces name in the
	// table.
	do func(ctx context.Context, c *cluster.Cluster, log *slog.Logger) (string, error)
}

var faults = []fault{
	{"kill -9 a worker (worker-1; restarted after 10 s, worker-2 keeps running)", 0, func(ctx context.Context, c *cluster.Cluster, _ *slog.Logger) (string, error) {
		if err := c.Workers[0].Kill9(); err != nil {
			return "", err
		}
		time.Sleep(10 * time.Second)
		if err := c.Workers[0].Start(); err != nil {
			return "", err
		}
		return "", cluster.WaitReady(ctx, c.WorkerURLs[0], time.Minute)
	}},
	{"restart NATS (SIGTERM, start on the same JetStream directory)", 0, func(ctx context.Context, c *cluster.Cluster, _ *slog.Logger) (string, error) {
		return "", c.RestartNATS(ctx)
	}},
	{"restart PostgreSQL (fast shutdown, start on the same data directory)", 0, func(ctx context.Context, c *cluster.Cluster, _ *slog.Logger) (string, error) {
		return "", c.RestartPostgres(ctx)
	}},
	{"geocoder fake down for 60 s (503 to every request; routes shifted to fresh coordinates so labels miss the cache)", 2, func(ctx context.Context, c *cluster.Cluster, _ *slog.Logger) (string, error) {
		c.Nominatim.SetDown(true)
		defer c.Nominatim.SetDown(false)
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(60 * time.Second):
		}
		return "", nil
	}},
}

// chaos is `make chaos` (one NATS server, the four faults above) and `make
// chaos-cluster` (three clustered NATS servers, clusterFaults): each fault
// during load, then a settle and a store audit; the per-fault figures are
// the audit's change since the previous.
func chaos(ctx context.Context, log *slog.Logger, o chaosOptions, results string, keep bool) error {
	if o.phase <= 0 {
		o.phase = 60 * time.Second
	}
	kind, list, command := "chaos", faults, fmt.Sprintf("make chaos CHAOS_AGENTS=%d PHASE=%s", o.agents, o.phase)
	if o.natsNodes == 3 {
		kind, list, command = "chaos-cluster", clusterFaults, fmt.Sprintf("make chaos-cluster CHAOS_AGENTS=%d PHASE=%s", o.agents, o.phase)
	} else if o.natsNodes != 1 {
		return fmt.Errorf("-nats-nodes must be 1 or 3, not %d", o.natsNodes)
	}
	c, err := cluster.Start(ctx, cluster.Options{Source: source, Workers: 2, Log: log, NATSNodes: o.natsNodes})
	if err != nil {
		return err
	}
	defer func() {
		c.Close()
		if !keep {
			_ = os.RemoveAll(c.Dir)
		}
	}()
	ledger := agent.NewLedger()
	t := report.Table{Title: "Per fault (load: agents running the soak script throughout; audit after the store settled)",
		Header: []string{"fault", "tool calls", "calls failed", "agents that saw a failure", "… and then completed a cycle (recovered)", "cycles completed", "events lost", "events doubled", "gaps / requests without terminal", "fault injected ok", "failed cycles by first failing step"}}
	var prev audit.Report
	totalLost, totalDoubled := int64(0), int64(0)
	var totalCalls, totalFailed, totalSeen, totalRecovered, injectedOK int
	started := time.Now()
	var placement []string
	if kind == "chaos-cluster" {
		placement = streamPlacement(ctx, c)
	}
	for i, f := range list {
		stats := agent.NewStats()
		lctx, cancel := context.WithCancel(ctx)
		done := make(chan *loadResult, 1)
		go func() { done <- runLoad(lctx, log, c, o.agents, fmt.Sprintf("chaos%d", i), stats, ledger, f.shift) }()
		time.Sleep(o.phase / 2)
		log.Info("injecting", slog.String("fault", f.name))
		happened, ferr := f.do(ctx, c, log)
		name := f.name
		if happened != "" {
			name = happened
		}
		if ferr != nil {
			log.Error("fault", slog.String("fault", f.name), slog.Any("error", ferr))
		}
		time.Sleep(o.phase)
		cancel()
		lr := <-done
		if err := audit.Settle(ctx, c.DatabaseURL, 10*time.Second, 3*time.Minute); err != nil {
			log.Warn("settle", slog.Any("error", err))
		}
		rep, err := audit.Run(ctx, c.DatabaseURL, c.NATSURL, audit.Ledger{Acked: ledger.Acked, Deleted: ledger.Deleted, DeleteSent: ledger.DeleteSent})
		if err != nil {
			return fmt.Errorf("audit after %s: %w", f.name, err)
		}
		calls, failed := 0, 0
		for _, row := range stats.Rows() {
			calls += row.Calls
			failed += row.Calls - row.Codes["ok"]
		}
		lost := rep.Lost - prev.Lost + rep.AckedMissing - prev.AckedMissing
		doubled := rep.Doubled - prev.Doubled + rep.ManyTerminal - prev.ManyTerminal
		totalLost += lost
		totalDoubled += doubled
		injected := "yes"
		if ferr != nil {
			injected = "error: " + ferr.Error()
		} else {
			injectedOK++
		}
		totalCalls += calls
		totalFailed += failed
		totalSeen += int(lr.failedAgents.Load())
		totalRecovered += int(lr.recoveredAgents.Load())
		t.Rows = append(t.Rows, []string{name, fmt.Sprint(calls), fmt.Sprint(failed), fmt.Sprint(lr.failedAgents.Load()), fmt.Sprint(lr.recoveredAgents.Load()),
			fmt.Sprint(lr.cycles.Load()), fmt.Sprint(lost), fmt.Sprint(doubled), fmt.Sprintf("%d / %d", rep.GapStreams, rep.ZeroTerminal), injected, lr.kinds()})
		log.Info("fault done", slog.String("fault", f.name), slog.Int("calls", calls), slog.Int("failed", failed), slog.Int64("lost", lost), slog.Int64("doubled", doubled))
		prev = rep
	}
	r := report.Result{Kind: kind, Command: command, Date: time.Now().UTC().Format("2006-01-02T15:04Z"),
		Label: chaosLabel(o.agents, o.phase+o.phase/2, time.Since(started).Round(time.Second))}
	if kind == "chaos-cluster" {
		r.Label = clusterLabel(o.agents, o.phase, time.Since(started).Round(time.Second))
	}
	noLoss, noDup := totalLost == 0, totalDoubled == 0
	which := map[int]string{3: "the three faults", 4: "the four faults"}[len(list)]
	if which == "" {
		which = fmt.Sprintf("the %d faults", len(list))
	}
	r.Summary = []report.Check{
		{Check: "events lost across " + which, Measured: fmt.Sprint(totalLost), Pass: &noLoss},
		{Check: "events doubled across " + which, Measured: fmt.Sprint(totalDoubled), Pass: &noDup},
	}
	if kind == "chaos-cluster" {
		allBack, allInjected := totalSeen == totalRecovered, injectedOK == len(list)
		r.Summary = append(r.Summary,
			report.Check{Check: "faults injected and undone as planned", Measured: fmt.Sprintf("%d of %d", injectedOK, len(list)), Pass: &allInjected},
			report.Check{Check: "calls failed across " + which, Measured: fmt.Sprintf("%d of %d", totalFailed, totalCalls)},
			report.Check{Check: "agents that saw a failure and then completed a cycle", Measured: fmt.Sprintf("%d of %d", totalRecovered, totalSeen), Pass: &allBack},
			report.Check{Check: "stream placement at the start", Measured: strings.Join(placement, "; ")})
	}
	r.Tables = []report.Table{t, auditTable(prev)}
	r.Notes = append(r.Notes, buildNote())
	if kind == "chaos-cluster" {
		r.Notes = append(r.Notes, clusterNote)
	}
	r.Notes = append(r.Notes,
		"Lost = stored trip events never published on EVENTS, plus agent-acknowledged writes missing from the store; doubled = event ids published twice on EVENTS, plus computation requests with more than one terminal event.",
		fmt.Sprintf("The fake Nominatim answered %d requests in all and refused %d while down (the worker caches labels in JetStream KV, so only fresh coordinates reach it).", c.Nominatim.Requests.Load(), c.Nominatim.Refused.Load()))
	for _, e := range prev.Examples {
		r.Notes = append(r.Notes, "audit: "+e)
	}
	if err := report.Write(results, r); err != nil {
		return err
	}
	printResult(r)
	return nil
}

// chaosLabel says how big the chaos run really was. The issue asks for the
// faults during the soak's load — 200 agents for 10 minutes — so a run with
// fewer agents, or less than 10 minutes of load in all, is labelled short.
func chaosLabel(agents int, perFault, total time.Duration) string {
	l := fmt.Sprintf("%d agents, %s of load around each fault, %s in all, 2 worker processes", agents, perFault, total)
	if agents < 200 || total < 10*time.Minute {
		l = "SHORT RUN: " + l + " — not 200 agents for 10 minutes"
	}
	return l
}
