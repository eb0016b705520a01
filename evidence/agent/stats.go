package agent

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// Stats collects every call's latency and outcome per tool, and the first
// few failed calls of each tool and code as they were answered
// (Failures). Safe for concurrent use; a nil *Stats records nothing.
type Stats struct {
	mu       sync.Mutex
	latency  map[string][]time.Duration
	codes    map[string]map[string]int
	failures map[[2]string][]Failure
}

// FailureSamples is how many failed calls Stats keeps per tool and code: a
// count says that calls failed, the first answers say why, and a run of
// thousands of expected refusals (version_conflict) must not fill memory.
const FailureSamples = 3

// Failure is one failed call as the agent saw it.
type Failure struct {
	// At is when the answer came.
	At   time.Time
	Tool string
	// Code is the tool error's code, or "protocol".
	Code string
	// Message is the tool error's message, or the protocol error.
	Message string
	Latency time.Duration
}

// NewStats is an empty collector.
func NewStats() *Stats {
	return &Stats{latency: map[string][]time.Duration{}, codes: map[string]map[string]int{}, failures: map[[2]string][]Failure{}}
}

// record counts a call of tool that took d and ended with code ("" for a
// success) and, for the first FailureSamples failures of that tool and
// code, keeps message.
func (s *Stats) record(tool string, d time.Duration, code, message string) {
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
	} else if k := [2]string{tool, code}; len(s.failures[k]) < FailureSamples {
		s.failures[k] = append(s.failures[k], Failure{At: time.Now(), Tool: tool, Code: code, Message: message, Latency: d})
	}
	s.codes[tool][code]++
}

// Failures are the failed calls kept (at most FailureSamples per tool and
// code) whose code is one of codes, in the order they were answered.
func (s *Stats) Failures(codes ...string) []Failure {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Failure
	for k, fs := range s.failures {
		if slices.Contains(codes, k[1]) {
			out = append(out, fs...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
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
