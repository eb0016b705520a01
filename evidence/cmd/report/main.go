// Command report rewrites the generated part of docs/RELIABILITY.md from
// evidence/results/*.json, so every figure there is what a command printed,
// never typed by hand. Run from the repository root (the make targets do).
package main

import (
	"fmt"
	"os"

	"github.com/roadbook/roadbook/evidence/report"
)

func main() {
	if err := report.Rewrite("evidence/results", "docs/RELIABILITY.md"); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	fmt.Println("docs/RELIABILITY.md: generated tables rewritten from evidence/results")
}
