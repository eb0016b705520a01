package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/postgres"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/testkit/benchtrip"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/tripstore"
)

// writeProfile is -write-cpuprofile: where the edit phase's CPU profile
// goes, to see what a write costs besides its append.
var writeProfile string

// writeAgent is -write-agent: each edit is what an MCP agent's edit_stages
// makes of it (a fresh idempotency key, as the MCP service derives one for
// every write) followed by the get_trip an agent reads the trip back with.
var writeAgent bool

// writePhase measures a stage edit through the API beside a bare append into
// the same store, with the same number of writers, each on a stream of its
// own (so neither side measures version conflicts), and prints the line the
// package comment describes.
func writePhase(ctx context.Context, store *postgres.Store, client roadbookv1connect.TripServiceClient, edits roadbookv1connect.StageEditServiceClient,
	token string, writers int, duration time.Duration, stageCount int,
) error {
	type writer struct {
		trip    string
		version atomic.Int64
		km      [2]float64
		n       atomic.Int64
	}
	ws := make([]*writer, writers)
	ts := tripstore.New(store, nil)
	for i := range ws {
		id, err := benchtrip.Create(ctx, ts, fixtures.Bytes(fixtures.OsloTrondheim), "bench", stageCount)
		if err != nil {
			return err
		}
		req := connect.NewRequest(&roadbookv1.GetTripRequest{TripId: id})
		req.Header().Set("Authorization", "Bearer "+token)
		got, err := client.GetTrip(ctx, req)
		if err != nil {
			return err
		}
		first := got.Msg.Trip.Stages[0].DistanceM / 1000
		ws[i] = &writer{trip: id, km: [2]float64{first - 1, first}}
		ws[i].version.Store(got.Msg.Trip.Version)
	}
	editOnce := func(w *writer) error {
		n := w.n.Add(1)
		req := connect.NewRequest(&roadbookv1.UpdateStageRequest{TripId: w.trip, Version: w.version.Load(), StageIndex: 0,
			Change: &roadbookv1.UpdateStageRequest_DistanceKm{DistanceKm: w.km[n%2]}})
		req.Header().Set("Authorization", "Bearer "+token)
		if writeAgent {
			key := fmt.Sprintf("bench-%s-%d", w.trip, n)
			req.Msg.IdempotencyKey = &key
		}
		resp, err := edits.UpdateStage(ctx, req)
		if err != nil {
			return err
		}
		w.version.Store(resp.Msg.Version)
		if !writeAgent {
			return nil
		}
		get := connect.NewRequest(&roadbookv1.GetTripRequest{TripId: w.trip})
		get.Header().Set("Authorization", "Bearer "+token)
		got, err := client.GetTrip(ctx, get)
		if err == nil && got.Msg.Trip.Version != resp.Msg.Version {
			err = fmt.Errorf("get_trip after the edit answered version %d, the edit %d", got.Msg.Trip.Version, resp.Msg.Version)
		}
		return err
	}
	type appender struct {
		stream  eventstore.StreamID
		version int64
	}
	as := make([]*appender, writers)
	for i := range as {
		as[i] = &appender{stream: eventstore.StreamID(fmt.Sprintf("bench-append-%d", i))}
	}
	appendOnce := func(a *appender) error {
		exp := eventstore.NoStream()
		if a.version > 0 {
			exp = eventstore.Exact(a.version)
		}
		res, err := store.Append(ctx, eventstore.AppendRequest{Stream: a.stream, Expected: exp, Owner: "bench",
			Events: []eventstore.NewEvent{{Payload: &eventsv1.TripCollectionChanged{TripId: ws[0].trip}}}})
		if err != nil {
			return err
		}
		a.version = res.Version
		return nil
	}

	if writeProfile != "" {
		f, err := os.Create(writeProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	var editCalls atomic.Int64
	cpu0 := processCPU()
	editN, editLat, err := phase(writers, 2*time.Second, duration, func(i int) error { editCalls.Add(1); return editOnce(ws[i]) })
	cpuPerOp := float64(processCPU()-cpu0) / float64(time.Millisecond) / float64(max(editCalls.Load(), 1))
	if writeProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return fmt.Errorf("edit phase: %w", err)
	}
	appendN, appendLat, err := phase(writers, 2*time.Second, duration, func(i int) error { return appendOnce(as[i]) })
	if err != nil {
		return fmt.Errorf("append phase: %w", err)
	}
	rps, appendRPS := float64(editN)/duration.Seconds(), float64(appendN)/duration.Seconds()
	name := "edit"
	if writeAgent {
		name = "edit-agent" // keyed edit + get_trip, one op
	}
	fmt.Printf("api %s rps=%.0f p50_ms=%.2f p99_ms=%.2f append_rps=%.0f append_p50_ms=%.2f ratio=%.2f cpu_ms_per_op=%.2f\n",
		name, rps, ms(editLat[len(editLat)/2]), ms(editLat[len(editLat)*99/100]), appendRPS, ms(appendLat[len(appendLat)/2]), rps/appendRPS, cpuPerOp)
	return nil
}

// phase runs fn(i) in a loop from n goroutines, goroutine i always with
// index i, first for warm-up and then for d; it returns the calls completed
// in d and their latencies, sorted. Any failed call fails the run.
func phase(n int, warmup, d time.Duration, fn func(int) error) (int, []time.Duration, error) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		all  []time.Duration
		fail atomic.Pointer[error]
	)
	start := time.Now()
	measureFrom, deadline := start.Add(warmup), start.Add(warmup+d)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for fail.Load() == nil {
				t := time.Now()
				if !t.Before(deadline) {
					break
				}
				if err := fn(i); err != nil {
					fail.Store(&err)
					return
				}
				if !t.Before(measureFrom) {
					mine = append(mine, time.Since(t))
				}
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if p := fail.Load(); p != nil {
		return 0, nil, *p
	}
	slices.Sort(all)
	return len(all), all, nil
}

// processCPU is the CPU time this process used so far (user and system):
// clients and API together, the same clients before and after a change, so
// its difference per op compares the API's own work where a busy machine
// makes throughput swing.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
