package workerserver

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roadbook/roadbook/services/worker/internal/consumer"
	"github.com/roadbook/roadbook/services/worker/internal/job"
)

// metrics are the worker's Prometheus series, registered on the registry
// the caller passes (no global registry: one-process mode and tests would
// collide).
type metrics struct {
	relayed  prometheus.Counter
	requeued prometheus.Counter
	ready    prometheus.Gauge
	jobs     *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		relayed:  prometheus.NewCounter(prometheus.CounterOpts{Name: "roadbook_relay_events_total", Help: "Events handed to JetStream and acked."}),
		requeued: prometheus.NewCounter(prometheus.CounterOpts{Name: "roadbook_reconciler_requeued_total", Help: "Stuck jobs re-enqueued by the reconciler."}),
		ready:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "roadbook_worker_ready", Help: "1 while the worker consumes jobs."}),
		jobs:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "roadbook_jobs_total", Help: "Job deliveries by kind and outcome."}, []string{"kind", "action"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "roadbook_job_duration_seconds", Help: "Job handling time.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)}, []string{"kind"}),
	}
	for _, c := range []prometheus.Collector{m.relayed, m.requeued, m.ready, m.jobs, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observeJob(k job.Kind, a consumer.Action, d time.Duration) {
	m.jobs.WithLabelValues(string(k), a.String()).Inc()
	m.duration.WithLabelValues(string(k)).Observe(d.Seconds())
}
