// Command bench-domain measures the domain's hot paths beside baselines taken
// in the same run and prints one line per figure (see docs/BENCHMARKS.md):
//
//	domain gpx-parse mb_per_s=N baseline_mb_per_s=M ratio=R peak_heap_mb=H
//	domain pace-4000km ms=N baseline_ms=B ratio=R points=P
package main

import (
	"fmt"
	"os"
)

func main() {
	for _, bench := range []func() (string, error){benchGPXParse, benchPace} {
		line, err := bench()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-domain:", err)
			os.Exit(1)
		}
		fmt.Println(line)
	}
}
