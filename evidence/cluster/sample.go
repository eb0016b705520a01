package cluster

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Sample is one process's resource use at one moment.
type Sample struct {
	// At is the time since sampling started.
	At time.Duration
	// Process names it.
	Process string
	// RSSKiB is VmRSS from /proc (0 when the process is down).
	RSSKiB int64
	// Goroutines is go_goroutines from its /metrics (-1: not exported or
	// not a Go service of ours).
	Goroutines int64
	// CPUSeconds is the user+system CPU time so far of the process and of
	// its children, alive or reaped (CPUOfTree), so PostgreSQL's figure
	// includes its backends.
	CPUSeconds float64
}

// SampleOnce reads every process's RSS and goroutines.
func (c *Cluster) SampleOnce(ctx context.Context, at time.Duration) []Sample {
	var out []Sample
	for _, p := range c.Procs() {
		s := Sample{At: at, Process: p.Name, Goroutines: -1}
		if pid := p.Pid(); pid != 0 {
			s.RSSKiB = rssKiB(pid)
			s.CPUSeconds = CPUOfTree(pid)
		}
		if u := c.MetricsURL(p); u != "" {
			s.Goroutines = goroutines(ctx, u)
		}
		out = append(out, s)
	}
	// The load generator shares the machine: its cost is part of the picture.
	self := Sample{At: at, Process: "agents (evidence)", Goroutines: int64(runtime.NumGoroutine()), RSSKiB: rssKiB(os.Getpid()), CPUSeconds: cpuSeconds(os.Getpid())}
	return append(out, self)
}

func rssKiB(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	return 0
}

func goroutines(ctx context.Context, url string) int64 {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return int64(f)
			}
		}
	}
	return -1
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// statFields are the fields of /proc/<pid>/stat after the command name
// (which may hold spaces): state is [0], ppid [1], utime [11], stime [12],
// cutime [13], cstime [14]. Nil when the process is gone.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
}

// statSeconds adds the clock-tick fields at the given indexes of statFields.
func statSeconds(pid int, idx ...int) float64 {
	f := statFields(pid)
	var total float64
	for _, i := range idx {
		if i >= len(f) {
			return 0
		}
		v, _ := strconv.ParseFloat(f[i], 64)
		total += v
	}
	return total / clockTicks
}

func cpuSeconds(pid int) float64 { return statSeconds(pid, 11, 12) }

// CPUOfTree is the CPU seconds of pid, of its direct children alive now
// (PostgreSQL's backends are children of the postmaster), and of the
// children it has reaped (cutime + cstime: a backend or autovacuum worker
// that exited keeps counting).
func CPUOfTree(pid int) float64 {
	total := cpuSeconds(pid) + reapedChildrenSeconds(pid)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil || child == pid {
			continue
		}
		if ppid(child) == pid {
			total += cpuSeconds(child)
		}
	}
	return total
}

// reapedChildrenSeconds is cutime + cstime of pid: the CPU of the children
// it has waited for.
func reapedChildrenSeconds(pid int) float64 { return statSeconds(pid, 13, 14) }

func ppid(pid int) int {
	f := statFields(pid)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// RSSKiB is the process's VmRSS now (0 when it is down).
func (p *Proc) RSSKiB() int64 {
	if pid := p.Pid(); pid != 0 {
		return rssKiB(pid)
	}
	return 0
}
