package stream_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/worker/internal/job"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
)

// soakShape is the traffic of `make soak` as the relay hands it on: trips
// of about 15 events over about ten event types (so about two thirds of
// the EVENTS messages open a subject of their own), one JOBS message per
// four events, payloads from 200 B to 4 KB and the relay's headers.
type soakShape struct {
	// Events is the number of EVENTS messages.
	Events int
	// FewTrips, when positive, spreads the events over that many trips
	// only (a handful of subjects instead of tens of thousands).
	FewTrips int
	// NoMsgIDs publishes without Nats-Msg-Id (no dedup entries at all).
	NoMsgIDs bool
}

// eventTypes are the short names of the soak's trip events in the order a
// trip's life produces them; a trip cycles through them.
var eventTypes = []string{
	"TripCreated", "RouteImportRequested", "RouteImported", "StagesRequested", "StagesPlanned",
	"AnalysisRequested", "AnalysisCompleted", "LabelsResolved", "StageEdited", "StagesPlanned",
	"AnalysisRequested", "AnalysisCompleted", "StageEdited", "AccommodationsFound", "TripDeleted",
}

// jobKinds are the JOBS kinds a trip's events request, one per four events.
var jobKinds = []job.Kind{job.KindImport, job.KindStages, job.KindAnalysis, job.KindAccommodations}

// loader publishes a soakShape in parts, carrying the current trip over.
type loader struct {
	shape   soakShape
	rng     *rand.Rand
	payload []byte
	trips   []uuid.UUID
	trip    uuid.UUID
	next    int
	futures []jetstream.PubAckFuture
}

func newLoader(s soakShape) *loader {
	l := &loader{shape: s, rng: rand.New(rand.NewPCG(1, 2)), payload: make([]byte, 4096), trips: make([]uuid.UUID, max(s.FewTrips, 1))}
	for i := range l.payload {
		l.payload[i] = byte('a' + l.rng.IntN(26))
	}
	for i := range l.trips {
		l.trips[i] = uuid.New()
	}
	return l
}

// publish sends the next n events of the shape in relay-sized batches
// (256 events, every ack awaited) and returns the number of JOBS messages
// it sent with them.
func (l *loader) publish(tb testing.TB, js jetstream.JetStream, n int) int {
	tb.Helper()
	jobs := 0
	for range n {
		i := l.next
		l.next++
		if l.shape.FewTrips > 0 {
			l.trip = l.trips[i%l.shape.FewTrips]
		} else if i%len(eventTypes) == 0 {
			l.trip = uuid.New()
		}
		typ := eventTypes[i%len(eventTypes)]
		id := uuid.New()
		size := 200 + l.rng.IntN(len(l.payload)-200)
		l.send(tb, js, job.EventSubject(l.trip, typ), id.String(), typ, l.payload[:size], i)
		if i%4 == 0 {
			k := jobKinds[(i/4)%len(jobKinds)]
			body := []byte(`{"trip_id":"` + l.trip.String() + `","kind":"` + string(k) + `"}`)
			l.send(tb, js, job.Subject(k, l.trip), job.MsgID(k, id), typ, body, i)
			jobs++
		}
		if i%256 == 255 {
			l.flush(tb)
		}
	}
	l.flush(tb)
	return jobs
}

// send publishes one message with the relay's headers.
func (l *loader) send(tb testing.TB, js jetstream.JetStream, subject, msgID, eventType string, data []byte, pos int) {
	h := nats.Header{}
	if !l.shape.NoMsgIDs {
		h.Set(nats.MsgIdHdr, msgID)
	}
	h.Set("Roadbook-Event-Type", "roadbook.events.v1."+eventType)
	h.Set("Roadbook-Stream", "trip-"+l.trip.String())
	h.Set("Roadbook-Stream-Version", strconv.Itoa(pos%len(eventTypes)+1))
	h.Set("Roadbook-Position", strconv.Itoa(pos))
	h.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	f, err := js.PublishMsgAsync(&nats.Msg{Subject: subject, Header: h, Data: data})
	require.NoError(tb, err)
	l.futures = append(l.futures, f)
}

// flush awaits every outstanding publish ack.
func (l *loader) flush(tb testing.TB) {
	for _, f := range l.futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			require.NoError(tb, err)
		case <-time.After(10 * time.Second):
			tb.Fatal("no publish ack within 10 s")
		}
	}
	l.futures = l.futures[:0]
}

// worker acks JOBS messages as the worker does: the one durable pull
// consumer, a prefetch of 8, an explicit ack each.
type worker struct {
	cons  jetstream.Consumer
	cc    jetstream.ConsumeContext
	acked atomic.Int64
}

func startWorker(ctx context.Context, tb testing.TB, js jetstream.JetStream) *worker {
	tb.Helper()
	cons, err := js.CreateOrUpdateConsumer(ctx, stream.Jobs, stream.DefaultConsumerOptions().ConsumerConfig())
	require.NoError(tb, err)
	w := &worker{cons: cons}
	w.cc, err = cons.Consume(func(m jetstream.Msg) {
		if m.Ack() == nil {
			w.acked.Add(1)
		}
	}, jetstream.PullMaxMessages(8))
	require.NoError(tb, err)
	tb.Cleanup(w.cc.Stop)
	return w
}

// drained waits until want jobs were acked and the server holds none
// pending or unacked.
func (w *worker) drained(ctx context.Context, tb testing.TB, want int) {
	tb.Helper()
	require.Eventually(tb, func() bool {
		info, err := w.cons.Info(ctx)
		return err == nil && w.acked.Load() >= int64(want) && info.NumAckPending == 0 && info.NumPending == 0
	}, 2*time.Minute, 20*time.Millisecond, "every job acked")
}
