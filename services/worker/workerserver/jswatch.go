package workerserver

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/roadbook/roadbook/services/worker/internal/stream"
)

// The JetStream watchdog's pace: a probe every jsProbeInterval (also each
// probe's timeout), and a reconnect after jsProbeFailures failed probes in a
// row, so about 15 s of JetStream silence.
const (
	jsProbeInterval = 5 * time.Second
	jsProbeFailures = 3
)

// jsWatch moves the worker's NATS connection to another server when
// JetStream stops answering through the current one while the connection
// itself stays up. A NATS server cut off from the rest of its cluster keeps
// its clients: in the chaos-cluster run (docs/RELIABILITY.md) a 60 s
// partition of the node both workers were connected to stopped the relay
// and every job fetch for the whole minute, although the other two nodes
// had quorum. nats.go's own reconnects cover a connection that is down, so
// a disconnected client is left to them.
type jsWatch struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	log *slog.Logger
	// interval and failures default to jsProbeInterval and jsProbeFailures.
	interval time.Duration
	failures int
	// reconnects counts the reconnects forced.
	reconnects prometheus.Counter
}

// errNoLeader is a probe's answer when the JOBS stream has no leader.
var errNoLeader = errors.New("the JOBS stream has no leader")

// probe asks for what only a server in touch with its cluster can give: the
// account's JetStream info, which needs the meta leader (a cut-off server
// answers 503 "JetStream system temporarily unavailable"), and a leader of
// JOBS (a cut-off server answers the stream's info after a few seconds, but
// without one). One server on its own always has both.
func (w *jsWatch) probe(ctx context.Context) error {
	if _, err := w.js.AccountInfo(ctx); err != nil {
		return err
	}
	st, err := w.js.Stream(ctx, stream.Jobs)
	if err != nil {
		return err
	}
	if cl := st.CachedInfo().Cluster; cl != nil && cl.Leader == "" {
		return errNoLeader
	}
	return nil
}

// run probes until ctx ends.
func (w *jsWatch) run(ctx context.Context) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	bad := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !w.nc.IsConnected() {
			bad = 0
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, w.interval)
		err := w.probe(pctx)
		cancel()
		if err == nil || ctx.Err() != nil {
			bad = 0
			continue
		}
		if bad++; bad < w.failures {
			continue
		}
		bad = 0
		w.log.Warn("JetStream has not answered through this NATS server; reconnecting to another",
			slog.String("server", w.nc.ConnectedUrlRedacted()), slog.Int("failed probes", w.failures), slog.Any("error", err))
		if err := w.nc.ForceReconnect(); err == nil {
			w.reconnects.Inc()
		}
	}
}
