// Command evidence runs Roadbook as separate processes on a private
// PostgreSQL cluster and a NATS server, and measures it:
//
//	evidence soak    -duration 10m -agents 200   (make soak)
//	evidence chaos   -agents 50 -phase 60s       (make chaos)
//	evidence chaos   -nats-nodes 3 -agents 200   (make chaos-cluster)
//	evidence hostile                             (make hostile)
//
// Each writes evidence/results/<kind>.json; `go run ./evidence/cmd/report`
// turns those into docs/RELIABILITY.md. Run it from the repository root.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/roadbook/roadbook/evidence/cluster"
)

// source is the -src flag: where cluster.Start builds roadbook from.
var source string

// tolerated is the -tolerate flag as a set: pending parts agents do not
// wait for.
var tolerated = map[string]bool{}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: evidence soak|chaos|hostile [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cmd := os.Args[1]
	fs := flag.NewFlagSet("evidence "+cmd, flag.ExitOnError)
	results := fs.String("results", "evidence/results", "directory of the result files")
	keep := fs.Bool("keep", false, "keep the working directory (logs, data) after the run")
	tolerate := fs.String("tolerate", "", "pending parts agents do not wait for, comma-separated (e.g. labels, for a build without a geocoder)")
	fs.StringVar(&source, "src", "", "checkout to build roadbook from (default: this workspace)")
	so := soakOptions{}
	co := chaosOptions{}
	var only string
	switch cmd {
	case "soak":
		fs.DurationVar(&so.duration, "duration", 10*time.Minute, "how long the agents run")
		fs.IntVar(&so.agents, "agents", 200, "concurrent agents")
		fs.IntVar(&so.workers, "workers", 1, "roadbook worker processes")
		fs.StringVar(&so.kind, "kind", "soak", "result kind to write (soak, capacity)")
	case "chaos":
		fs.IntVar(&co.agents, "agents", 50, "concurrent agents during the faults")
		fs.DurationVar(&co.phase, "phase", 60*time.Second, "load after each fault (half of it before)")
		fs.IntVar(&co.natsNodes, "nats-nodes", 1, "1: one NATS server and the four faults; 3: a NATS cluster (R3) and the node faults (make chaos-cluster)")
	case "hostile":
		fs.StringVar(&only, "only", "", "run only these attack groups, comma-separated (preauth, rebinding, files, oversized, ssrf, arguments, tampered, injection); prints the result without writing hostile.json")
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q: want soak, chaos or hostile\n", cmd)
		os.Exit(2)
	}
	_ = fs.Parse(os.Args[2:])
	for _, p := range strings.Split(*tolerate, ",") {
		if p = strings.TrimSpace(p); p != "" {
			tolerated[p] = true
		}
	}
	var err error
	switch cmd {
	case "soak":
		err = soak(ctx, log, so, *results, *keep)
	case "chaos":
		err = chaos(ctx, log, co, *results, *keep)
	case "hostile":
		err = hostile(ctx, log, *results, *keep, only)
	}
	if err != nil {
		log.Error("evidence failed", slog.Any("error", err))
		os.Exit(1)
	}
}

// buildNote says what was measured: which checkout the binaries came from
// and which pending parts the agents did not wait for.
func buildNote() string {
	src := "the working tree"
	if source != "" {
		src = source + " (-src)"
	}
	n := "roadbook built from " + src
	dir := source
	if dir == "" {
		dir, _ = cluster.Root()
	}
	if out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%h (%cd)", "--date=format:%Y-%m-%d %H:%M").Output(); err == nil {
		n += " at commit " + strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			n += " plus uncommitted changes"
		}
	}
	if len(tolerated) > 0 {
		var ps []string
		for p := range tolerated {
			ps = append(ps, p)
		}
		n += "; agents did not wait for pending: " + strings.Join(ps, ", ") + " (-tolerate)"
	}
	return n
}
