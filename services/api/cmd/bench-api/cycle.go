package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/auth"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/testkit/fixtures"
)

// cycleGPX are the routes a soak agent uploads (evidence/cmd/evidence/load.go
// globs testkit/fixtures/gpx/*.gpx: these five, from 8 KB to 1.2 MB); cycle
// n uploads cycleGPX[n % 5], so every run uploads the same mix.
var cycleGPX = []string{
	"gpx/long_brouter_oslo-trondheim_fastbike.gpx",
	"gpx/multi_cerknicko-jezero_8tracks_gpx10.gpx",
	"gpx/multi_gpxstudio_with_tracks_and_segments.gpx",
	"gpx/rte-only_drei-gipfel-lauf.gpx",
	"gpx/rte-only_gpxstudio_with_routes.gpx",
}

// cyclePoll is the wait between two GetTrip calls while the trip is partial.
// An agent waits the answer's next.afterSeconds (2 s); half of that still
// lets a stages job or an analysis finish between two reads on a busy
// machine, so nearly every follow is two reads, as in the soak, and the
// calls per cycle do not move with the worker's speed (calls_per_cycle
// shows it).
const cyclePoll = time.Second

// cycleAPI are the Connect clients of the cycle, as the MCP service builds
// them: binary protobuf, no compression.
type cycleAPI struct {
	trips  roadbookv1connect.TripServiceClient
	stages roadbookv1connect.StageEditServiceClient
	calls  atomic.Int64
}

func newCycleAPI(hc *http.Client, base string) *cycleAPI {
	opt := connect.WithAcceptCompression("gzip", nil, nil)
	return &cycleAPI{trips: roadbookv1connect.NewTripServiceClient(hc, base, opt),
		stages: roadbookv1connect.NewStageEditServiceClient(hc, base, opt)}
}

// runCycle starts the worker and the API as processes on the bench's
// schema and NATS and runs the cycle phase against them.
func runCycle(ctx context.Context, dbURL, natsURL, dir string, iss *auth.HS256Issuer, d time.Duration) error {
	stop, err := startWorker(ctx, workerBin, dir, dbURL, natsURL)
	if err != nil {
		return err
	}
	defer stop()
	api, err := startAPI(dbURL, natsURL, cycleProfile)
	if err != nil {
		return err
	}
	defer api.stop()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cycleClients, MaxConnsPerHost: cycleClients}}
	return cyclePhase(ctx, newCycleAPI(hc, api.base), api, iss, cycleClients, d)
}

// cyclePhase runs the soak agent's cycle (evidence/agent/script.go) as the
// RPCs the MCP service makes of its tool calls, from clients goroutines for
// d after a warm-up, with the worker (a process of its own, not counted)
// computing stages and analyses, and prints
//
//	api cycle cycles_per_s=N cpu_ms_per_cycle=C calls_per_cycle=K cpu_ms_per_call=P bench_cpu_ms_per_cycle=B p50_ms=A p99_ms=Z
//
// where C is the API process's CPU per cycle completed (and P per call),
// warm-up included on both sides of the division, B this process's (the
// clients and the embedded NATS server), and A, Z the cycle's latency,
// polling waits included.
func cyclePhase(ctx context.Context, api *cycleAPI, proc *apiProcess, iss *auth.HS256Issuer, clients int, d time.Duration) error {
	gpx := make([][]byte, len(cycleGPX))
	for i, name := range cycleGPX {
		gpx[i] = fixtures.Bytes(name)
	}
	var cycles atomic.Int64
	seq := make([]int, clients)
	cpu0, calls0 := processCPU(), api.calls.Load()
	apiCPU0, err := proc.cpu()
	if err != nil {
		return err
	}
	n, lat, err := phase(clients, 3*time.Second, d, func(i int) error {
		seq[i]++
		err := api.cycle(ctx, iss, fmt.Sprintf("cycle-%d-%d", i, seq[i]), gpx[(i+seq[i])%len(gpx)], seq[i]%2 == 0)
		if err == nil {
			cycles.Add(1)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("cycle phase: %w", err)
	}
	apiCPU1, err := proc.cpu()
	if err != nil {
		return err
	}
	all := float64(max(cycles.Load(), 1))
	bench := float64(processCPU()-cpu0) / float64(time.Millisecond)
	cpu := float64(apiCPU1-apiCPU0) / float64(time.Millisecond)
	calls := float64(api.calls.Load() - calls0)
	fmt.Printf("api cycle cycles_per_s=%.1f cpu_ms_per_cycle=%.2f calls_per_cycle=%.2f cpu_ms_per_call=%.3f bench_cpu_ms_per_cycle=%.2f p50_ms=%.1f p99_ms=%.1f\n",
		float64(n)/d.Seconds(), cpu/all, calls/all, cpu/max(calls, 1), bench/all, ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]))
	return nil
}

// cycle is one agent cycle for user (a user per cycle, so the per-user
// create limit never refuses one): create from gpx, follow until ready, list,
// get stage 0, a rest day after it, follow, analyze, follow, and when del the
// deletion asked (validate_only) and then confirmed. Writes carry an
// idempotency key, as the MCP service derives one for each.
func (a *cycleAPI) cycle(ctx context.Context, iss *auth.HS256Issuer, user string, gpx []byte, del bool) error {
	tok, err := iss.Mint(auth.Claims{Subject: user, Audience: []string{auth.DefaultAudience},
		ExpiresAt: time.Now().Add(time.Hour), Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	if err != nil {
		return err
	}
	key := func(step string) *string {
		sum := sha256.Sum256([]byte(user + "/" + step))
		k := hex.EncodeToString(sum[:16])
		return &k
	}
	created, err := call(a, tok, a.trips.CreateTripFromUpload, &roadbookv1.CreateTripFromUploadRequest{
		Filename: "route.gpx", ContentType: "application/gpx+xml", Content: gpx, Title: user, IdempotencyKey: key("create")})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	id := created.TripId
	trip, err := a.follow(ctx, tok, id)
	if err != nil {
		return err
	}
	if _, err := call(a, tok, a.trips.ListTrips, &roadbookv1.ListTripsRequest{PageSize: 5}); err != nil {
		return fmt.Errorf("list: %w", err)
	}
	if len(trip.Stages) > 0 {
		if _, err := call(a, tok, a.trips.GetStage, &roadbookv1.GetStageRequest{TripId: id}); err != nil {
			return fmt.Errorf("get stage: %w", err)
		}
		if _, err := call(a, tok, a.stages.AddRestDay, &roadbookv1.AddRestDayRequest{TripId: id, Version: trip.Version,
			IdempotencyKey: key("rest")}); err != nil {
			return fmt.Errorf("rest day: %w", err)
		}
		if trip, err = a.follow(ctx, tok, id); err != nil {
			return err
		}
	}
	if _, err := call(a, tok, a.trips.AnalyzeTrip, &roadbookv1.AnalyzeTripRequest{TripId: id, Version: trip.Version,
		IdempotencyKey: key("analyze")}); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	if trip, err = a.follow(ctx, tok, id); err != nil {
		return err
	}
	if !del {
		return nil
	}
	if _, err := call(a, tok, a.trips.DeleteTrip, &roadbookv1.DeleteTripRequest{TripId: id, Version: trip.Version, ValidateOnly: true}); err != nil {
		return fmt.Errorf("delete (impact): %w", err)
	}
	if _, err := call(a, tok, a.trips.DeleteTrip, &roadbookv1.DeleteTripRequest{TripId: id, Version: trip.Version,
		IdempotencyKey: key("delete")}); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}

// follow reads the trip until nothing is pending (get_trip as an agent
// follows its next hint), for at most a minute.
func (a *cycleAPI) follow(ctx context.Context, tok, id string) (*roadbookv1.TripDigest, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := call(a, tok, a.trips.GetTrip, &roadbookv1.GetTripRequest{TripId: id})
		if err != nil {
			return nil, fmt.Errorf("get trip: %w", err)
		}
		if !got.Trip.Partial {
			return got.Trip, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("trip %s still partial after a minute (is the worker running?)", id)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(cyclePoll):
		}
	}
}

// call makes one authenticated unary call and counts it.
func call[Req, Resp any](a *cycleAPI, tok string, fn func(context.Context, *connect.Request[Req]) (*connect.Response[Resp], error), msg *Req) (*Resp, error) {
	a.calls.Add(1)
	req := connect.NewRequest(msg)
	req.Header().Set("Authorization", "Bearer "+tok)
	resp, err := fn(context.Background(), req)
	if err != nil {
		return nil, err
	}
	return resp.Msg, nil
}
