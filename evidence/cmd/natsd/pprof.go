package main

import (
	"expvar"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"
)

// pprofEnv names the environment variable -pprof defaults to, so a soak
// started by `make soak` (whose harness passes natsd fixed flags) can be
// told to expose the server's heap: NATSD_PPROF=127.0.0.1:6061 make soak.
const pprofEnv = "NATSD_PPROF"

// servePprof serves the Go runtime's profiles on addr, so a run can show
// what the NATS server holds, not only its RSS: /debug/pprof/heap?gc=1 for
// `go tool pprof -top`, /debug/vars for the runtime's memory statistics
// (memstats.HeapAlloc, the live heap after the last GC). A port that is
// taken (three nodes of a cluster given one address through the
// environment) is reported and skipped: profiling must not stop the server.
func servePprof(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "natsd: pprof listener on %s: %v (profiling off)\n", addr, err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.Handle("/debug/vars", expvar.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	fmt.Println("natsd pprof on", ln.Addr())
	go func() { _ = srv.Serve(ln) }()
}
