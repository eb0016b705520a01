package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// cpuMeter reads the CPU time spent by this process (the Go client) and by
// the PostgreSQL backends serving the pool (found by the pool's
// application_name in pg_stat_activity at every reading, so connections the
// pool opens meanwhile count; /proc works because the server runs on this
// machine). CPU per operation is what the neighbours' load on a shared
// machine hardly moves, unlike a rate: on saturated cores the rate ratio
// tends to the inverse ratio of CPU per operation.
type cpuMeter struct {
	pool *pgxpool.Pool
	app  string
}

func newCPUMeter(pool *pgxpool.Pool, app string) *cpuMeter { return &cpuMeter{pool: pool, app: app} }

// reading is the client's CPU time and each backend's, at one moment.
type reading struct {
	client  time.Duration
	servers map[int]time.Duration
}

func (m *cpuMeter) read(ctx context.Context) reading {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	r := reading{client: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), servers: map[int]time.Duration{}}
	rows, err := m.pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, m.app)
	if err != nil {
		return r
	}
	var pids []int
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			pids = append(pids, pid)
		}
	}
	rows.Close()
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // a remote server: the figures count the client only
		}
		// Fields after the command name (which may hold spaces): utime
		// and stime are the 14th and 15th of the line.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		r.servers[pid] = time.Duration(u+s) * (time.Second / clockTicks)
	}
	return r
}

// since is the client's and the backends' CPU between two readings; a
// backend that appeared in between counts whole (it started in between).
func (r reading) since(before reading) (client, server time.Duration) {
	for pid, t := range r.servers {
		server += t - before.servers[pid]
	}
	return r.client - before.client, server
}

// clockTicks is USER_HZ, 100 on Linux.
const clockTicks = 100
