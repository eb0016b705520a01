// Command roadbook is Roadbook's one binary. `roadbook dev` runs the API, the
// worker and the MCP server in one process on a laptop (embedded NATS and
// event store); `roadbook api|worker|mcp|migrate` are what the containers run
// against PostgreSQL and NATS (both in internal/servers); `roadbook trip …`
// and `roadbook token` are a CLI over the Connect API, used the way a
// frontend would use it (internal/tripcli). This file is only the command
// table.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/roadbook/roadbook/cmd/roadbook/internal/envflag"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/servers"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/tripcli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one subcommand: its name, a one-line summary for the help, and
// the function that runs it.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists every subcommand in the order the help shows them.
func commands() []command {
	return []command{
		{"dev", "run Roadbook in one process (embedded NATS and event store)", servers.RunDev},
		{"trip", "create, list, show and export trips over the API", tripcli.RunTrip},
		{"token", "mint a dev token for a user of a dev instance", tripcli.RunToken},
		{"api", "run the Connect API against PostgreSQL and NATS", servers.RunAPI},
		{"worker", "run the worker (relay, job consumers, geocoding) against PostgreSQL and NATS", servers.RunWorker},
		{"mcp", "run the MCP server against the API", servers.RunMCP},
		{"migrate", "apply the PostgreSQL event store migrations", servers.RunMigrate},
	}
}

// run is main without the process exit, so the command's contract is
// testable: 0 on success, 1 on failure, 2 on a wrong command line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage())
		return 2
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage())
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, envflag.ErrUsage):
			return 2
		default:
			fmt.Fprintf(stderr, "roadbook %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "roadbook: unknown command %q\n\n%s\n", args[0], usage())
	return 2
}

// usage is the top-level help.
func usage() string {
	s := "usage: roadbook <command> [flags]\n\ncommands:\n"
	for _, c := range commands() {
		s += fmt.Sprintf("  %-8s %s\n", c.name, c.summary)
	}
	return s + "\nRun `roadbook <command> -h` for a command's flags."
}
