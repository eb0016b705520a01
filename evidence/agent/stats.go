package agent

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// Stats collects every call's latency and outcome per tool. Safe for
// concurrent use; a nil *Stats records nothing.
type Stats struct {
	mu      sync.Mutex
	latency map[string][]time.Duration
	codes   map[string]map[string]int
}

// NewStats is an empty collector.
func NewStats() *Stats {
	return &Stats{latency: map[string][]time.Duration{}, codes: map[string]map[string]int{}}
}

func (s *Stats) record(tool string, d time.Duration, code string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency[tool] = append(s.latency[tool], d)
	if s.codes[tool] == nil {
		s.codes[tool] = map[string]int{}
	}
	if code == "" {
		code = "ok"
	}
	s.codes[tool][code]++
}

// ToolRow is one tool's figures.
type ToolRow struct {
	Tool          string
	Calls         int
	P50, P99, Max time.Duration
	// Codes counts outcomes: "ok", MCP error codes, "protocol".
	Codes map[string]int
}

// Rows are the figures per tool, sorted by name.
func (s *Stats) Rows() []ToolRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ToolRow
	for tool, ls := range s.latency {
		ls = slices.Clone(ls)
		slices.Sort(ls)
		codes := map[string]int{}
		for k, v := range s.codes[tool] {
			codes[k] = v
		}
		out = append(out, ToolRow{Tool: tool, Calls: len(ls), P50: quantile(ls, 0.50), P99: quantile(ls, 0.99), Max: ls[len(ls)-1], Codes: codes})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// CodesString formats codes as "ok=12 version_conflict=1".
func CodesString(codes map[string]int) string {
	keys := make([]string, 0, len(codes))
	for k := range codes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for _, k := range keys {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("%s=%d", k, codes[k])
	}
	return s
}
