package servers

import (
	"net/http"
	"net/http/pprof"
)

// withPprof adds Go's profiling endpoints (/debug/pprof/…) to the worker's
// health port or the API's admin port, in front of h. Off by default (`--pprof`, ROADBOOK_PPROF):
// profiles expose the process's internals and cost CPU while they run, so
// they are for diagnosing (the evidence soak compares the worker's CPU
// profile early and late in a run), on a port that is never public.
func withPprof(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	mux.Handle("/", h)
	return mux
}
