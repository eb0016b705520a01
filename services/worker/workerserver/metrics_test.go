package workerserver

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
)

func TestFailureEventsMetric(t *testing.T) {
	t.Parallel()
	t.Run("failure events are counted by job kind, other events not at all", func(t *testing.T) {
		t.Parallel()
		reg := prometheus.NewRegistry()
		m, err := newMetrics(reg)
		require.NoError(t, err)
		m.countFailures([]eventstore.RecordedEvent{
			{Type: "roadbook.events.v1.StagesFailed"},
			{Type: "roadbook.events.v1.StagesComputed"},
			{Type: "roadbook.events.v1.AnalysisFailed"},
			{Type: "roadbook.events.v1.StagesFailed"},
			{Type: "roadbook.events.v1.RouteImported"},
		})
		require.Equal(t, 2.0, testutil.ToFloat64(m.failures.WithLabelValues("stages")))
		require.Equal(t, 1.0, testutil.ToFloat64(m.failures.WithLabelValues("analysis")))
		require.Zero(t, testutil.ToFloat64(m.failures.WithLabelValues("import")))
		n, err := testutil.GatherAndCount(reg, MetricFailureEvents)
		require.NoError(t, err)
		require.Equal(t, 3, n, "one series per failing kind, none for other events")
	})
	t.Run("the relay lag reads 0 before a relay runs", func(t *testing.T) {
		t.Parallel()
		m, err := newMetrics(prometheus.NewRegistry())
		require.NoError(t, err)
		require.Zero(t, testutil.ToFloat64(m.relayLag))
	})
}
