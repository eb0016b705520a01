package servers

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// processRegistry is the registry every service command starts from: the Go
// runtime collector (go_goroutines, go_memstats_*, go_gc_*) and the process
// collector (process_resident_memory_bytes, process_cpu_seconds_total,
// process_open_fds), before the service adds its own series. api, worker and
// mcp thus answer the same process series on /metrics, which the dashboards
// and the evidence soak read per process (a leak shows as a rising
// goroutine count or RSS, whichever service it is in).
func processRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}
