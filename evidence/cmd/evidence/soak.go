package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"time"

	"github.com/roadbook/roadbook/evidence/agent"
	"github.com/roadbook/roadbook/evidence/audit"
	"github.com/roadbook/roadbook/evidence/cluster"
	"github.com/roadbook/roadbook/evidence/report"
)

type soakOptions struct {
	duration time.Duration
	agents   int
	workers  int
	kind     string
}

// soak is `make soak`: agents for duration, samples every 10 s, a store
// audit at the end.
func soak(ctx context.Context, log *slog.Logger, o soakOptions, results string, keep bool) error {
	if o.duration <= 0 {
		o.duration = 10 * time.Minute
	}
	c, err := cluster.Start(ctx, cluster.Options{Source: source, Workers: o.workers, Log: log})
	if err != nil {
		return err
	}
	defer func() {
		c.Close()
		if !keep {
			_ = os.RemoveAll(c.Dir)
		}
	}()
	log.Info("soak", slog.Int("agents", o.agents), slog.Duration("duration", o.duration))
	stats, ledger := agent.NewStats(), agent.NewLedger()
	lctx, cancel := context.WithTimeout(ctx, o.duration)
	samples := sampler(lctx, c, 10*time.Second)
	readings := halves(lctx, log, c, ledger, o.duration)
	started := time.Now()
	lr := runLoad(lctx, log, c, o.agents, "soak", stats, ledger, 0)
	cancel()
	rStart, rMid, rEnd, halvesOK := readings()
	ran := time.Since(started).Round(time.Second)
	smp := samples()
	log.Info("load finished; waiting for the store to settle", slog.Duration("ran", ran), slog.Int64("cycles", lr.cycles.Load()))
	settleErr := audit.Settle(ctx, c.DatabaseURL, 10*time.Second, 3*time.Minute)
	rep, err := audit.Run(ctx, c.DatabaseURL, c.NATSURL, audit.Ledger{Acked: ledger.Acked, Deleted: ledger.Deleted, DeleteSent: ledger.DeleteSent})
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	appended, err := audit.Appended(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	d := demand{trips: len(ledger.Created), deleted: len(ledger.Deleted), appended: appended,
		nominatim: c.Nominatim.Requests.Load() + c.Nominatim.Refused.Load()}
	r := soakResult(o, started, ran, stats, lr, smp, rep, settleErr)
	r.Tables = append(r.Tables, demandTable(d, ran, smp, o.agents))
	if halvesOK {
		r.Tables = append(r.Tables, costTable(rStart, rMid, rEnd, smp),
			queryTable(cluster.Since(rStart.queries, rMid.queries), cluster.Since(rMid.queries, rEnd.queries), 12))
	}
	if err := report.Write(results, r); err != nil {
		return err
	}
	printResult(r)
	return nil
}

func soakResult(o soakOptions, started time.Time, ran time.Duration, stats *agent.Stats, lr *loadResult, smp []cluster.Sample, rep audit.Report, settleErr error) report.Result {
	r := report.Result{Kind: o.kind, Date: time.Now().UTC().Format("2006-01-02T15:04Z"),
		Command: fmt.Sprintf("make soak DURATION=%s AGENTS=%d", o.duration, o.agents)}
	if o.kind != "soak" {
		r.Command += " EVIDENCE_FLAGS='-kind " + o.kind + "'"
	}
	r.Label = fmt.Sprintf("%s, %d agents, %d worker process(es)", ran, o.agents, o.workers)
	if o.duration < 10*time.Minute || o.agents < 200 {
		r.Label = "SHORT RUN: " + r.Label + " — not the 10-minute, 200-agent soak"
	}
	tools := report.Table{Title: "Per tool (latency as the agent measured it, MCP → API → store)",
		Header: []string{"tool", "calls", "errors", "error rate", "p50 ms", "p99 ms", "max ms", "outcomes"}}
	var calls, errs, broken int
	brokenCodes := []string{"protocol", "internal", "unknown", "unavailable"}
	for _, row := range stats.Rows() {
		e := row.Calls - row.Codes["ok"]
		calls += row.Calls
		errs += e
		for _, code := range brokenCodes {
			broken += row.Codes[code]
		}
		tools.Rows = append(tools.Rows, []string{row.Tool, fmt.Sprint(row.Calls), fmt.Sprint(e), pct(e, row.Calls),
			ms(row.P50), ms(row.P99), ms(row.Max), agent.CodesString(row.Codes)})
	}
	cycles := lr.cycles.Load()
	okRate := broken == 0 && errs*100 < calls
	r.Summary = append(r.Summary,
		report.Check{Check: "tool calls / error rate (pass: < 1 % and none internal, unavailable or protocol)", Measured: fmt.Sprintf("%d calls, %d errors (%s); %d agent cycles, %.2f cycles/s", calls, errs, pct(errs, calls), cycles, float64(cycles)/ran.Seconds()), Pass: &okRate},
	)
	r.Notes = append(r.Notes, buildNote())
	r.Tables = append(r.Tables, tools)
	if fs := stats.Failures(brokenCodes...); len(fs) > 0 {
		t := report.Table{Title: fmt.Sprintf("Calls the check counts against the system, as answered (the first %d per tool and code)", agent.FailureSamples),
			Header: []string{"at (s into the run)", "tool", "code", "ms", "message"}}
		for _, f := range fs {
			t.Rows = append(t.Rows, []string{fmt.Sprintf("%.1f", f.At.Sub(started).Seconds()), f.Tool, f.Code, ms(f.Latency), f.Message})
		}
		r.Tables = append(r.Tables, t)
	}
	if len(lr.errKinds) > 0 {
		t := report.Table{Title: "Failed agent cycles, by first failing step", Header: []string{"step / code", "cycles"}}
		keys := make([]string, 0, len(lr.errKinds))
		for k := range lr.errKinds {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Rows = append(t.Rows, []string{k, fmt.Sprint(lr.errKinds[k])})
		}
		r.Tables = append(r.Tables, t)
	}
	r.Tables = append(r.Tables, resourceTable(smp))
	flat := flatness(smp)
	r.Summary = append(r.Summary, report.Check{Check: "RSS / goroutines, first → last sample (per process)", Measured: flat})
	r.Tables = append(r.Tables, auditTable(rep))
	auditOK := rep.OK() && settleErr == nil
	r.Summary = append(r.Summary, report.Check{Check: "store audit (gaps, terminal events, lost, doubled, acked writes)",
		Measured: fmt.Sprintf("%d streams, %d events; gaps %d; requests %d: without terminal %d, with several %d; lost %d, doubled %d; acked missing %d",
			rep.Streams, rep.Events, rep.GapStreams, rep.Requests, rep.ZeroTerminal, rep.ManyTerminal, rep.Lost, rep.Doubled, rep.AckedMissing), Pass: &auditOK})
	if settleErr != nil {
		r.Notes = append(r.Notes, "settle: "+settleErr.Error())
	}
	for _, e := range rep.Examples {
		r.Notes = append(r.Notes, "audit: "+e)
	}
	return r
}

func auditTable(rep audit.Report) report.Table {
	return report.Table{Title: "Store audit at the end (from PostgreSQL and the JetStream EVENTS stream)", Header: []string{"check", "count", "must be"},
		Rows: [][]string{
			{"streams / events in the store", fmt.Sprintf("%d / %d", rep.Streams, rep.Events), "—"},
			{"streams whose versions are not 1..n or whose head row disagrees", fmt.Sprint(rep.GapStreams), "0"},
			{"computation requests (RouteImported, AnalysisRequested, TripCreated from URL)", fmt.Sprint(rep.Requests), "—"},
			{"… without a terminal event", fmt.Sprint(rep.ZeroTerminal), "0"},
			{"… with more than one terminal event", fmt.Sprint(rep.ManyTerminal), "0"},
			{"stored trip events published on EVENTS (the relay publishes trip streams only)", fmt.Sprint(rep.Published), "= trip events"},
			{"stored events never published (lost)", fmt.Sprint(rep.Lost), "0"},
			{"event ids published more than once (doubled)", fmt.Sprint(rep.Doubled), "0"},
			{"acknowledged writes missing from the store", fmt.Sprint(rep.AckedMissing), "0"},
			{"deleted trips with events or head row left", fmt.Sprint(rep.DeletedLeftovers), "0"},
		}}
}

func resourceTable(smp []cluster.Sample) report.Table {
	var procs []string
	seen := map[string]bool{}
	byAt := map[time.Duration]map[string]cluster.Sample{}
	var ats []time.Duration
	for _, s := range smp {
		if !seen[s.Process] {
			seen[s.Process] = true
			procs = append(procs, s.Process)
		}
		if byAt[s.At] == nil {
			byAt[s.At] = map[string]cluster.Sample{}
			ats = append(ats, s.At)
		}
		byAt[s.At][s.Process] = s
	}
	t := report.Table{Title: "Resources every 10 s: RSS MiB / goroutines (– : not exported; postgres is the postmaster only)", Header: append([]string{"t"}, procs...)}
	for _, at := range ats {
		row := []string{at.String()}
		for _, p := range procs {
			s := byAt[at][p]
			g := "–"
			if s.Goroutines >= 0 {
				g = fmt.Sprint(s.Goroutines)
			}
			row = append(row, fmt.Sprintf("%.0f / %s", float64(s.RSSKiB)/1024, g))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func flatness(smp []cluster.Sample) string {
	first, last := map[string]cluster.Sample{}, map[string]cluster.Sample{}
	var order []string
	for _, s := range smp {
		if _, ok := first[s.Process]; !ok {
			first[s.Process] = s
			order = append(order, s.Process)
		}
		last[s.Process] = s
	}
	out := ""
	for _, p := range order {
		if first[p].Goroutines < 0 && p != "postgres" && p != "nats" {
			out += fmt.Sprintf("%s %.0f→%.0f MiB; ", p, float64(first[p].RSSKiB)/1024, float64(last[p].RSSKiB)/1024)
			continue
		}
		g := ""
		if first[p].Goroutines >= 0 {
			g = fmt.Sprintf(", %d→%d goroutines", first[p].Goroutines, last[p].Goroutines)
		}
		out += fmt.Sprintf("%s %.0f→%.0f MiB%s; ", p, float64(first[p].RSSKiB)/1024, float64(last[p].RSSKiB)/1024, g)
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f %%", 100*float64(n)/float64(of))
}

func printResult(r report.Result) {
	fmt.Printf("%s — %s\n", r.Kind, r.Label)
	for _, c := range r.Summary {
		pass := ""
		if c.Pass != nil {
			pass = map[bool]string{true: " [pass]", false: " [FAIL]"}[*c.Pass]
		}
		fmt.Printf("  %s: %s%s\n", c.Check, c.Measured, pass)
	}
	for _, t := range r.Tables {
		fmt.Println(" ", t.Title)
		for _, row := range t.Rows {
			fmt.Println("   ", row)
		}
	}
	for _, n := range r.Notes {
		fmt.Println("  note:", n)
	}
}

// demand is what the load asked of the system.
type demand struct {
	trips, deleted int
	appended       int64
	nominatim      int64
}

// demandTable relates the work done to the CPU each process used during
// the load: the per-core figures docs/CAPACITY.md builds on.
func demandTable(d demand, ran time.Duration, smp []cluster.Sample, agents int) report.Table {
	first, last := map[string]cluster.Sample{}, map[string]cluster.Sample{}
	var order []string
	for _, s := range smp {
		if _, ok := first[s.Process]; !ok {
			first[s.Process] = s
			order = append(order, s.Process)
		}
		last[s.Process] = s
	}
	t := report.Table{Title: "Demand and CPU during the load (CPU = user+system seconds between the first and last sample; postgres includes its backends)",
		Header: []string{"figure", "value"}}
	secs := ran.Seconds()
	t.Rows = append(t.Rows,
		[]string{"trips created / deleted", fmt.Sprintf("%d / %d (%.2f created/s, %.4f per agent-second)", d.trips, d.deleted, float64(d.trips)/secs, float64(d.trips)/secs/float64(agents))},
		[]string{"events appended (all streams, incl. deleted trips)", fmt.Sprintf("%d (%.1f/s, %.3f per agent-second)", d.appended, float64(d.appended)/secs, float64(d.appended)/secs/float64(agents))},
		[]string{"Nominatim requests (fake; answered + refused)", fmt.Sprintf("%d (%.2f/s; %.2f per trip created)", d.nominatim, float64(d.nominatim)/secs, float64(d.nominatim)/max(float64(d.trips), 1))},
	)
	window := (last[order[0]].At - first[order[0]].At).Seconds()
	for _, p := range order {
		cpu := last[p].CPUSeconds - first[p].CPUSeconds
		t.Rows = append(t.Rows, []string{"CPU " + p, fmt.Sprintf("%.1f s over %.0f s sampled = %.2f cores", cpu, window, cpu/max(window, 1))})
	}
	return t
}
