package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roadbook/roadbook/evidence/agent"
	"github.com/roadbook/roadbook/evidence/cluster"
)

// fixtures are the real GPX routes (testkit/fixtures/gpx) agents upload.
func fixtures() ([]string, error) {
	root, err := cluster.Root()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(root, "testkit", "fixtures", "gpx", "*.gpx"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no GPX fixtures under testkit/fixtures/gpx: %v", err)
	}
	sort.Strings(files)
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// loadResult is one load phase's outcome.
type loadResult struct {
	cycles, cycleErrors atomic.Int64
	errMu               sync.Mutex
	errKinds            map[string]int
	// recoveredAgents saw a failed cycle and completed one afterwards.
	failedAgents, recoveredAgents atomic.Int64
}

func (l *loadResult) fail(err error) {
	l.cycleErrors.Add(1)
	msg := err.Error()
	if i := strings.Index(msg, ": "); i > 0 && strings.HasPrefix(msg, "agent: protocol error") {
		msg = "protocol error"
	}
	if len(msg) > 80 {
		msg = msg[:80]
	}
	l.errMu.Lock()
	l.errKinds[msg]++
	l.errMu.Unlock()
}

// runLoad runs agents scripted agents against c until ctx ends; each agent
// is a user of its own (prefix-i) with its own MCP session.
func runLoad(ctx context.Context, log *slog.Logger, c *cluster.Cluster, agents int, prefix string, stats *agent.Stats, ledger *agent.Ledger, shift float64) *loadResult {
	gpx, err := fixtures()
	if err != nil {
		log.Error("fixtures", slog.Any("error", err))
		return &loadResult{errKinds: map[string]int{}}
	}
	res := &loadResult{errKinds: map[string]int{}}
	var wg sync.WaitGroup
	for i := range agents {
		wg.Go(func() {
			// Stagger the starts over 5 s, as hosts do not all connect at once.
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Duration(i) * 5 * time.Second / time.Duration(max(agents, 1))):
			}
			name := fmt.Sprintf("%s-%d", prefix, i)
			var s *agent.Session
			failed := false
			for n := 0; ctx.Err() == nil; n++ {
				if s == nil {
					tok, err := c.Issuer.Token(name, c.MCPURL, 24*time.Hour)
					if err != nil {
						res.fail(err)
						return
					}
					s, err = agent.Connect(ctx, c.MCPURL, tok, nil, stats)
					if err != nil {
						if ctx.Err() == nil {
							res.fail(fmt.Errorf("connect: %w", err))
							failed = true
							time.Sleep(time.Second)
						}
						continue
					}
				}
				sc := &agent.Script{Session: s, Name: name, GPX: gpx, Ledger: ledger, HintTimeout: 60 * time.Second, Tolerate: tolerated, Shift: shift,
					Rand: rand.New(rand.NewPCG(uint64(i), uint64(n)))}
				err := sc.Cycle(ctx, n)
				if ctx.Err() != nil {
					break
				}
				if err != nil {
					res.fail(err)
					if !failed {
						res.failedAgents.Add(1)
					}
					failed = true
					// A broken session (e.g. the MCP process restarted) is
					// replaced, as a host reconnects.
					_ = s.Close()
					s = nil
					time.Sleep(time.Second)
					continue
				}
				res.cycles.Add(1)
				if failed {
					res.recoveredAgents.Add(1)
					failed = false
				}
			}
			if s != nil {
				_ = s.Close()
			}
		})
	}
	wg.Wait()
	return res
}

// sampler samples every process every interval until ctx ends.
func sampler(ctx context.Context, c *cluster.Cluster, interval time.Duration) func() []cluster.Sample {
	var mu sync.Mutex
	var all []cluster.Sample
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			s := c.SampleOnce(context.WithoutCancel(ctx), time.Since(start).Round(time.Second))
			mu.Lock()
			all = append(all, s...)
			mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() []cluster.Sample {
		<-done
		mu.Lock()
		defer mu.Unlock()
		return all
	}
}

// kinds formats the failed cycles by their first failing step.
func (l *loadResult) kinds() string {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	keys := make([]string, 0, len(l.errKinds))
	for k := range l.errKinds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		if out != "" {
			out += "; "
		}
		out += fmt.Sprintf("%s ×%d", k, l.errKinds[k])
	}
	if out == "" {
		return "none"
	}
	return out
}
