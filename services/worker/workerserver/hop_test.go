package workerserver_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/postgres"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	"github.com/roadbook/roadbook/tripstore"
)

// hopStore is the worker's event store in the pipeline benchmarks: every
// call goes to the PostgreSQL store (its Notify included, so the relay is
// woken in-process as in `roadbook dev`), and when an append that records a
// trip's StagesComputed returns, whoever waits for that trip is told the
// time. With a trace set it also records when each call the hop makes
// started and ended (BenchmarkHopTrace).
type hopStore struct {
	*postgres.Store

	mu      sync.Mutex
	waiters map[eventstore.StreamID]chan time.Time
	// settled are told when a trip's AnalysisCompleted is appended: the
	// last of the work a create sets off when no geocoder is configured.
	settled map[eventstore.StreamID]chan struct{}
	trace   *hopTrace
	// noPrefetch makes the store refuse the relay's requests for its next
	// page (BenchmarkHopPrefetch's "off" rounds): every page is then the
	// relay's own read, as before the eleventh session.
	noPrefetch atomic.Bool
}

func newHopStore(es *postgres.Store) *hopStore {
	return &hopStore{Store: es, waiters: map[eventstore.StreamID]chan time.Time{}, settled: map[eventstore.StreamID]chan struct{}{}}
}

// await registers interest in the StagesComputed of trip id; the channel
// receives the time its append returned.
func (s *hopStore) await(id uuid.UUID) <-chan time.Time {
	ch := make(chan time.Time, 1)
	s.mu.Lock()
	s.waiters[tripstore.StreamID(id)] = ch
	s.mu.Unlock()
	return ch
}

func (s *hopStore) Append(ctx context.Context, req eventstore.AppendRequest) (eventstore.AppendResult, error) {
	start := time.Now()
	res, err := s.Store.Append(ctx, req)
	end := time.Now()
	what := "append"
	for _, e := range req.Events {
		if _, ok := e.Payload.(*eventsv1.StagesComputed); ok {
			what = "stages" // the hop's result
		}
	}
	s.record(req.Stream, what, start, end)
	if err != nil {
		return res, err
	}
	for _, e := range req.Events {
		if _, ok := e.Payload.(*eventsv1.AnalysisCompleted); ok {
			s.mu.Lock()
			ch := s.settled[req.Stream]
			delete(s.settled, req.Stream)
			s.mu.Unlock()
			if ch != nil {
				close(ch)
			}
		}
		if _, ok := e.Payload.(*eventsv1.StagesComputed); ok {
			s.mu.Lock()
			ch := s.waiters[req.Stream]
			delete(s.waiters, req.Stream)
			s.mu.Unlock()
			if ch != nil {
				ch <- end
			}
		}
	}
	return res, err
}

func (s *hopStore) Stream(ctx context.Context, id eventstore.StreamID) (eventstore.StreamInfo, error) {
	start := time.Now()
	info, err := s.Store.Stream(ctx, id)
	s.record(id, "head", start, time.Now())
	return info, err
}

func (s *hopStore) ReadStream(ctx context.Context, id eventstore.StreamID, after int64, limit int) ([]eventstore.RecordedEvent, error) {
	start := time.Now()
	evs, err := s.Store.ReadStream(ctx, id, after, limit)
	s.record(id, "read", start, time.Now())
	return evs, err
}

func (s *hopStore) ReadStreamTail(ctx context.Context, id eventstore.StreamID, after int64, limit int) (eventstore.StreamInfo, []eventstore.RecordedEvent, error) {
	start := time.Now()
	info, evs, err := s.Store.ReadStreamTail(ctx, id, after, limit)
	s.record(id, "load", start, time.Now())
	return info, evs, err
}

func (s *hopStore) Blob(ctx context.Context, hash []byte) ([]byte, error) {
	start := time.Now()
	b, err := s.Store.Blob(ctx, hash)
	s.record("", "blob", start, time.Now())
	return b, err
}

func (s *hopStore) ReadFeedPage(ctx context.Context, after eventstore.Cursor, limit int) (eventstore.FeedPage, error) {
	start := time.Now()
	p, err := s.Store.ReadFeedPage(ctx, after, limit)
	end := time.Now()
	if t := s.tracer(); t != nil {
		t.feed(start, end, p.Events)
	}
	return p, err
}

// PrefetchFeed passes the relay's request on, or withdraws any while
// noPrefetch is set.
func (s *hopStore) PrefetchFeed(after eventstore.Cursor, limit int) {
	if s.noPrefetch.Load() {
		s.Store.PrefetchFeed(eventstore.Cursor{}, 0)
		return
	}
	s.Store.PrefetchFeed(after, limit)
}

func (s *hopStore) SaveCursor(ctx context.Context, reader string, c eventstore.Cursor) error {
	start := time.Now()
	err := s.Store.SaveCursor(ctx, reader, c)
	s.record("", "cursor", start, time.Now())
	return err
}

func (s *hopStore) tracer() *hopTrace {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.trace
}

func (s *hopStore) record(id eventstore.StreamID, what string, start, end time.Time) {
	if t := s.tracer(); t != nil {
		t.call(id, what, start, end)
	}
}

// awaitSettled registers interest in the AnalysisCompleted of trip id.
func (s *hopStore) awaitSettled(id uuid.UUID) <-chan struct{} {
	ch := make(chan struct{})
	s.mu.Lock()
	s.settled[tripstore.StreamID(id)] = ch
	s.mu.Unlock()
	return ch
}

// quietHops runs count hops as hops does, but each starts only once the
// work the previous create set off has finished (its analysis recorded,
// then a moment for the relay to hand that on): the hop alone, without the
// previous trip's analysis competing for the machine. The difference to
// hops is what the downstream work costs the next hop.
func (r *pipelineRig) quietHops(ctx context.Context, tb testing.TB, count int) []float64 {
	tb.Helper()
	lat := make([]float64, 0, count)
	for range count {
		id := uuid.New()
		settled := r.hs.awaitSettled(id)
		_, ms := r.oneHopAs(ctx, tb, id)
		lat = append(lat, ms)
		select {
		case <-settled:
		case <-time.After(60 * time.Second):
			tb.Fatalf("trip %s: no analysis within 60 s", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return lat
}

// hops runs count hops one after the other (see oneHop) and returns their
// latencies in milliseconds.
func (r *pipelineRig) hops(ctx context.Context, tb testing.TB, count int) []float64 {
	tb.Helper()
	lat := make([]float64, 0, count)
	for range count {
		_, ms := r.oneHop(ctx, tb)
		lat = append(lat, ms)
	}
	return lat
}

// crossHops is hops with the client appending through a store value of its
// own (its own pool), as the API in another process does: no in-process
// commit wakes the relay, the remote store's announcement does (feedwake,
// startPipeline), or with HOP_NO_WAKE=1 the relay's poll.
func (r *pipelineRig) crossHops(ctx context.Context, tb testing.TB, count int) []float64 {
	tb.Helper()
	saved := r.trips
	r.trips = r.remote
	defer func() { r.trips = saved }()
	return r.hops(ctx, tb, count)
}

// oneHop creates a trip from the 3-point route (one append, as the API
// does) and waits until the worker's StagesComputed append returned. The
// latency is wall time from before the create to the return of the
// result's append: the span riverRig.hops measures for River.
func (r *pipelineRig) oneHop(ctx context.Context, tb testing.TB) (eventstore.StreamID, float64) {
	tb.Helper()
	return r.oneHopAs(ctx, tb, uuid.New())
}

// oneHopAs is oneHop for the trip id.
func (r *pipelineRig) oneHopAs(ctx context.Context, tb testing.TB, id uuid.UUID) (eventstore.StreamID, float64) {
	tb.Helper()
	ref, err := tripstore.HashBytes(r.tiny.Info.Hash)
	require.NoError(tb, err)
	done := r.hs.await(id)
	start := time.Now()
	_, err = r.trips.Execute(ctx, tripstore.User("bench"), id, trip.Create{
		Upload: &trip.CreateUpload{Filename: r.tiny.Filename, SizeBytes: r.tiny.Size, Route: r.tiny.Info},
	}, tripstore.Options{BlobRefs: [][]byte{ref}})
	require.NoError(tb, err)
	select {
	case end := <-done:
		return tripstore.StreamID(id), float64(end.Sub(start).Microseconds()) / 1000
	case <-time.After(60 * time.Second):
		tb.Fatalf("trip %s: no stages within 60 s", id)
		return "", 0
	}
}

// hopLine is the line `make bench-pipeline` prints for the hop: ours
// beside River's, both measured in the same run.
func hopLine(ours, river []float64) string {
	p50, p99, rp50 := percentile(ours, 50), percentile(ours, 99), percentile(river, 50)
	return fmt.Sprintf("pipeline hop p50_ms=%.2f p99_ms=%.2f river_p50_ms=%.2f ratio=%.2f", p50, p99, rp50, rp50/p50)
}
