package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/propagation"

	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
)

// ErrLastDeliveryLost is the cause recorded for a job whose last delivery
// ended without an ack or a nak: its worker died (or drained) on it.
var ErrLastDeliveryLost = errors.New("the job's last delivery ended without an answer (its worker stopped)")

// advisoryQueue makes one replica handle each advisory.
const advisoryQueue = "roadbook-worker-advisories"

// MaxDeliveries handles JetStream's max-deliveries advisory of the worker's
// consumer: the job's failure event is appended and the message deleted (a
// work-queue stream keeps it otherwise), so a job whose worker died on its
// last delivery fails now instead of waiting for the reconciler.
type MaxDeliveries struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	handler Handler
	subject string
	log     *slog.Logger
	sub     *nats.Subscription
	wg      sync.WaitGroup
	ctx     context.Context
	cancel  context.CancelFunc
}

// maxDeliverAdvisory is the part of io.nats.jetstream.advisory.v1.max_deliver
// the worker reads.
type maxDeliverAdvisory struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// NewMaxDeliveries builds the advisory handler; Start subscribes it.
func NewMaxDeliveries(nc *nats.Conn, js jetstream.JetStream, h Handler, cons stream.ConsumerOptions, log *slog.Logger) (*MaxDeliveries, error) {
	if nc == nil || js == nil || h == nil {
		return nil, errors.New("consumer: NewMaxDeliveries needs a NATS connection, JetStream and a handler")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &MaxDeliveries{nc: nc, js: js, handler: h, subject: cons.MaxDeliveriesSubject(), log: log}, nil
}

// Start subscribes (in a queue group shared by every replica).
func (m *MaxDeliveries) Start(ctx context.Context) error {
	m.ctx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
	sub, err := m.nc.QueueSubscribe(m.subject, advisoryQueue, func(msg *nats.Msg) {
		m.wg.Add(1)
		go func() { defer m.wg.Done(); m.handle(m.ctx, msg.Data) }()
	})
	if err != nil {
		return fmt.Errorf("consumer: subscribing to %s: %w", m.subject, err)
	}
	m.sub = sub
	return m.nc.Flush()
}

// Stop unsubscribes and waits for the advisories being handled.
func (m *MaxDeliveries) Stop() error {
	var err error
	if m.sub != nil {
		err = m.sub.Unsubscribe()
	}
	m.wg.Wait()
	if m.cancel != nil {
		m.cancel()
	}
	return err
}

// handle records the failure of the advised job and deletes its message. A
// message already gone (another replica, or the runner's own Fail) needs
// nothing.
func (m *MaxDeliveries) handle(ctx context.Context, data []byte) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var adv maxDeliverAdvisory
	if err := json.Unmarshal(data, &adv); err != nil || adv.StreamSeq == 0 {
		m.log.Warn("unreadable max-deliveries advisory", slog.Any("error", err))
		return
	}
	st, err := m.js.Stream(ctx, stream.Jobs)
	if err != nil {
		m.log.Warn("max-deliveries advisory: no JOBS stream", slog.Any("error", err))
		return
	}
	raw, err := st.GetMsg(ctx, adv.StreamSeq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return
	}
	if err != nil {
		m.log.Warn("max-deliveries advisory: reading the job failed", slog.Uint64("stream_seq", adv.StreamSeq), slog.Any("error", err))
		return
	}
	j, err := job.Decode(raw.Data)
	log := m.log.With(slog.String("trip_id", j.TripID.String()), slog.String("kind", string(j.Kind)),
		slog.String("correlation_id", j.RequestEventID.String()), slog.Uint64("stream_seq", adv.StreamSeq))
	if err == nil {
		if raw.Header != nil { // the failure event continues the job's trace
			ctx = propagation.TraceContext{}.Extract(ctx, natsCarrier(raw.Header))
		}
		if ferr := m.handler.RecordFailure(ctx, j, ErrLastDeliveryLost, true); ferr != nil && Settle(ferr, 0, 0).Action != Ack {
			log.Error("max-deliveries advisory: recording the failure failed; the reconciler will retry", slog.Any("error", ferr))
			return
		}
		log.Warn("job failed after its last delivery; failure recorded")
	}
	if err := st.DeleteMsg(ctx, adv.StreamSeq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		log.Warn("max-deliveries advisory: deleting the job failed", slog.Any("error", err))
	}
}
