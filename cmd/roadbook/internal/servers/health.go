package servers

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// healthHandler serves the probes and metrics of a service whose own
// package has no HTTP surface (the worker): /healthz answers while the
// process lives, /readyz only while ready() holds (off from the start of a
// drain, so the probe and the drain agree), /metrics the service's registry.
func healthHandler(ready func() bool, reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

// plainServer serves h on ln in the background; the returned stop function
// shuts it down within ctx and reports the serve error, if any.
func plainServer(ln net.Listener, h http.Handler) (stop func(ctx context.Context) error) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	return func(ctx context.Context) error {
		return errors.Join(srv.Shutdown(ctx), <-done)
	}
}
