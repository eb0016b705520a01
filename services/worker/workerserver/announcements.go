package workerserver

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/roadbook/roadbook/eventstore/feedwake"
)

// MetricFeedAnnouncements counts this process's announcements of its
// commits to the relays of other processes (feedwake.Announcer), by
// outcome: sent; failed, refused by NATS, each a wake-up the relay gets
// from its 250 ms poll instead; skipped, left out while this worker's own
// relay held the lease. A rising failed count is creates waiting for the
// poll. `roadbook api` and `roadbook worker` export it.
const MetricFeedAnnouncements = "roadbook_feed_announcements_total"

// feedAnnouncements exports an announcer's counters as
// MetricFeedAnnouncements. of returns the announcer, nil while there is
// none (before Run, or with CrossProcessWake off): the series are then 0,
// so that they exist from the first scrape and increase() sees the first
// count.
type feedAnnouncements struct {
	of   func() *feedwake.Announcer
	desc *prometheus.Desc
}

func newFeedAnnouncements(of func() *feedwake.Announcer) feedAnnouncements {
	return feedAnnouncements{of: of, desc: prometheus.NewDesc(MetricFeedAnnouncements,
		"Announcements of this process's commits to other processes' relays (feedwake), by outcome: sent, failed (refused by NATS; the relay's poll stands in), skipped (this worker's relay held the lease).",
		[]string{"outcome"}, nil)}
}

// FeedAnnouncements is the collector of a's counters, for a process that
// runs an announcer of its own (`roadbook api`); a worker registers its
// own in New.
func FeedAnnouncements(a *feedwake.Announcer) prometheus.Collector {
	return newFeedAnnouncements(func() *feedwake.Announcer { return a })
}

// Describe implements prometheus.Collector.
func (f feedAnnouncements) Describe(ch chan<- *prometheus.Desc) { ch <- f.desc }

// Collect implements prometheus.Collector.
func (f feedAnnouncements) Collect(ch chan<- prometheus.Metric) {
	var sent, failed, skipped int64
	if a := f.of(); a != nil {
		sent, failed, skipped = a.Sent(), a.Failed(), a.Skipped()
	}
	for outcome, n := range map[string]int64{"sent": sent, "failed": failed, "skipped": skipped} {
		ch <- prometheus.MustNewConstMetric(f.desc, prometheus.CounterValue, float64(n), outcome)
	}
}
