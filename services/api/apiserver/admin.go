package apiserver

import (
	"net/http"

	"connectrpc.com/grpcreflect"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// adminRoutes are the operator's routes: /metrics, gRPC server reflection
// (v1 and v1alpha) and the probes again. They are served apart from the
// public routes (`roadbook api --admin-addr`, loopback by default; in the
// cluster a port no Service or ingress exposes), because the metrics name
// every procedure's traffic and error rates and reflection hands out the
// whole API schema: neither is for the internet (docs/SECURITY.md).
func adminRoutes(s *Server, reg *prometheus.Registry, services []string) http.Handler {
	mux := http.NewServeMux()
	reflector := grpcreflect.NewStaticReflector(services...)
	mux.Handle(grpcreflect.NewHandlerV1(reflector))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector))
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.ready)
	return mux
}

// AdminHandler is the operator's routes (/metrics, gRPC reflection,
// /healthz, /readyz) for a listener apart from the public one. Serve it
// over HTTP/1.1 and unencrypted HTTP/2 (reflection is gRPC).
func (s *Server) AdminHandler() http.Handler { return s.admin }
