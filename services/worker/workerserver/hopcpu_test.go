package workerserver_test

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

// cpuClock reads the CPU time of this process (client, relay, JetStream,
// worker, River: everything in the benchmark) and of the PostgreSQL
// backends of the pools named app (application_name; /proc works because
// the test server runs on this machine). Under contention a hop's latency
// is its waits times the machine's queueing, so the CPU each side spends
// per hop, which other work on the machine hardly moves, says where the
// difference comes from.
type cpuClock struct {
	pool *pgxpool.Pool
	app  string
}

type cpuReading struct {
	process time.Duration
	servers map[int]time.Duration
}

func (c cpuClock) read(ctx context.Context) cpuReading {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	r := cpuReading{process: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), servers: map[int]time.Duration{}}
	rows, err := c.pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, c.app)
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
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64) // utime, clock ticks (1/100 s)
		s, _ := strconv.ParseInt(f[12], 10, 64) // stime
		r.servers[pid] = time.Duration(u+s) * 10 * time.Millisecond
	}
	return r
}

// since is the process's and the backends' CPU between two readings (a
// backend that appeared in between counts whole).
func (r cpuReading) since(before cpuReading) (process, server time.Duration) {
	for pid, t := range r.servers {
		server += t - before.servers[pid]
	}
	return r.process - before.process, server
}

// withApp adds application_name to a connection URL or key=value DSN.
func withApp(u, app string) string {
	if !strings.Contains(u, "://") {
		return u + " application_name=" + app
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "application_name=" + app
}
