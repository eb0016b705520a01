// Command roadbook is Roadbook's one binary: `roadbook dev` will run the API,
// the worker and the MCP server in one process on a laptop, and the other
// subcommands are a CLI over the API. Until those services exist, it says
// plainly what is built and what is not, instead of pretending to run.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process exit, so the command's contract is testable.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "dev":
		fmt.Fprintln(stdout, devNotBuilt)
		return 1
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "roadbook: unknown command %q\n\n%s\n", args[0], usage)
		return 2
	}
}

const usage = `usage: roadbook <command>

commands:
  dev    run Roadbook in one process (embedded NATS, embedded store)
  help   show this help`

// devNotBuilt is printed by `roadbook dev` until the one-process mode lands:
// a newcomer must learn what exists rather than see a fake server start.
const devNotBuilt = `roadbook dev: the one-process mode is not built yet.
What exists today: the contracts (proto/), the event store (eventstore/, PostgreSQL and
embedded SQLite backends) and the domain rules (domain/). Run the tests with: make test`
