package apiserver

import (
	"context"
	"errors"
	"time"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics counts and times every RPC by procedure and Connect code.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg *prometheus.Registry) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roadbook_api_requests_total", Help: "API calls by procedure and result code.",
		}, []string{"procedure", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "roadbook_api_request_duration_seconds", Help: "API call latency by procedure.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14),
		}, []string{"procedure"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observe(procedure string, start time.Time, err error) {
	code := "ok"
	if err != nil {
		code = connect.CodeOf(err).String()
		var ce *connect.Error
		if !errors.As(err, &ce) {
			code = connect.CodeUnknown.String()
		}
	}
	m.requests.WithLabelValues(procedure, code).Inc()
	m.duration.WithLabelValues(procedure).Observe(time.Since(start).Seconds())
}

// WrapUnary implements connect.Interceptor.
func (m *metrics) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		start := time.Now()
		resp, err := next(ctx, req)
		m.observe(req.Spec().Procedure, start, err)
		return resp, err
	}
}

// WrapStreamingClient implements connect.Interceptor (no-op).
func (m *metrics) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler implements connect.Interceptor.
func (m *metrics) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		start := time.Now()
		err := next(ctx, conn)
		m.observe(conn.Spec().Procedure, start, err)
		return err
	}
}
