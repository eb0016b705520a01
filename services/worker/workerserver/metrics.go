package workerserver

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/feedwake"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/services/worker/internal/consumer"
	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/relay"
)

// Metric names the deploy/k8s PrometheusRule alerts on (with
// roadbook_breaker_state, exported by the upstream clients).
const (
	// MetricRelayLag is the age of the oldest event the active relay has
	// read but not yet handed to JetStream (0 when caught up or standing by).
	MetricRelayLag = "roadbook_relay_lag_seconds"
	// MetricFailureEvents counts failure events (RouteImportFailed,
	// StagesFailed, AnalysisFailed) relayed, by job kind.
	MetricFailureEvents = "roadbook_failure_events_total"
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
	failures *prometheus.CounterVec
	relayLag prometheus.GaugeFunc
	// natsMoves counts the reconnects the JetStream watchdog forced.
	natsMoves prometheus.Counter
	// lagOf is the relay the lag gauge reads (set by Run).
	lagOf atomic.Pointer[relay.Relay]
	// announcerOf is the announcer MetricFeedAnnouncements reads (set by
	// Run with CrossProcessWake).
	announcerOf atomic.Pointer[feedwake.Announcer]
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		relayed:  prometheus.NewCounter(prometheus.CounterOpts{Name: "roadbook_relay_events_total", Help: "Events handed to JetStream and acked."}),
		requeued: prometheus.NewCounter(prometheus.CounterOpts{Name: "roadbook_reconciler_requeued_total", Help: "Stuck jobs re-enqueued by the reconciler."}),
		ready:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "roadbook_worker_ready", Help: "1 while the worker consumes jobs."}),
		jobs:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "roadbook_jobs_total", Help: "Job deliveries by kind and outcome."}, []string{"kind", "action"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "roadbook_job_duration_seconds", Help: "Job handling time.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)}, []string{"kind"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricFailureEvents,
			Help: "Failure events appended to trips (RouteImportFailed, StagesFailed, AnalysisFailed), by job kind, counted by the relay as it hands them on.",
		}, []string{"kind"}),
		natsMoves: prometheus.NewCounter(prometheus.CounterOpts{Name: "roadbook_worker_nats_forced_reconnects_total",
			Help: "Reconnects to another NATS server forced because JetStream stopped answering through the current one (a server cut off from its cluster)."}),
	}
	m.relayLag = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: MetricRelayLag,
		Help: "Age of the oldest event the active relay has read but not yet relayed to JetStream; 0 when caught up or standing by.",
	}, func() float64 {
		r := m.lagOf.Load()
		if r == nil {
			return 0
		}
		return r.Lag(time.Now()).Seconds()
	})
	for _, k := range failureKinds {
		m.failures.WithLabelValues(string(k)) // every series exists from the start, so increase() sees the first one
	}
	announcements := newFeedAnnouncements(m.announcerOf.Load)
	for _, c := range []prometheus.Collector{m.relayed, m.requeued, m.ready, m.jobs, m.duration, m.failures, m.relayLag, m.natsMoves, announcements} {
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

// failureKinds maps the full type name of each failure event to the kind of
// job that failed.
var failureKinds = map[string]job.Kind{
	job.TypeName(&eventsv1.RouteImportFailed{}): job.KindImport,
	job.TypeName(&eventsv1.StagesFailed{}):      job.KindStages,
	job.TypeName(&eventsv1.AnalysisFailed{}):    job.KindAnalysis,
}

// countFailures counts the failure events of a relayed batch, whoever
// appended them (a job's last delivery, the max-deliveries advisory, a
// permanent error). The relay hands each event on once, except after a crash
// between JetStream's ack and its cursor save, which may count a batch twice.
func (m *metrics) countFailures(batch []eventstore.RecordedEvent) {
	for _, ev := range batch {
		if k, ok := failureKinds[ev.Type]; ok {
			m.failures.WithLabelValues(string(k)).Inc()
		}
	}
}
