// Command bench-mcp measures the MCP service's get_trip against the read it
// wraps: 100 concurrent MCP sessions (the go-sdk client over streamable
// HTTP, protocol 2025-11-25, each with its own agent token) call get_trip on
// a 30-stage trip for 20 s; then 100 concurrent Connect clients call
// TripService.GetTrip on the same trip, directly on the API, for 20 s. Both
// run in this process against one real stack: PostgreSQL store (a schema
// of the run's own, dropped afterwards), embedded NATS, the API with auth
// and validation, and the MCP service in front of it over loopback HTTP.
// It prints
//
//	mcp get-trip calls_per_s=N p50_ms=A p99_ms=B api_direct_rps=M ratio=R
//
// where ratio = calls_per_s / api_direct_rps: the share of the API's own
// read rate that survives the MCP layer (session handling, JSON-RPC, the
// per-call service credential, the digest rebuilt as tool JSON).
//
// On stderr it adds what the ratio needs to be read: the direct phase's
// latencies, and (unless -floor=false) a third phase, a bare go-sdk server
// answering the same digest without calling anything (floor.go), with the
// ratio bound that floor implies for any MCP service on this SDK and these
// cores.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"github.com/roadbook/roadbook/testkit/benchtrip"
	"github.com/roadbook/roadbook/testkit/fixtures"
)

func main() {
	sessions := flag.Int("sessions", 100, "concurrent MCP sessions (and direct API clients)")
	duration := flag.Duration("duration", 20*time.Second, "measuring time per phase")
	stages := flag.Int("stages", 30, "stages of the trip")
	fixture := flag.String("gpx", "", "GPX file of the trip's route (default the Oslo–Trondheim fixture, testkit/fixtures)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the MCP phase to this file")
	client := flag.String("client", "wire", "MCP client of the sessions: wire (a minimal Streamable HTTP client, wire.go) or sdk (the go-sdk client)")
	floor := flag.Bool("floor", true, "also measure a bare go-sdk server answering the same digest (floor.go) and print, on stderr, the ratio no MCP service on this SDK can beat here")
	cpu := flag.Bool("cpu", false, "also print, on stderr, this process's CPU time per call of each phase (PostgreSQL excluded): on a shared machine, a figure other load does not move")
	flag.Parse()
	profile = *cpuProfile
	reportCPU = *cpu
	measureFloorToo = *floor
	if *client != "wire" && *client != "sdk" {
		log.Fatalf("-client %q: want wire or sdk", *client)
	}
	if err := run(*sessions, *duration, *stages, *fixture, *client); err != nil {
		log.Fatal(err)
	}
}

// profile is the -cpuprofile path; empty means no profile.
var profile string

// reportCPU is the -cpu flag.
var reportCPU bool

// measureFloorToo is the -floor flag.
var measureFloorToo bool

// cpuTime is the user+system CPU time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startProfile starts a CPU profile into path (nothing when path is empty)
// and returns the function that stops it.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}

func run(sessions int, duration time.Duration, stageCount int, fixture, client string) error {
	ctx := context.Background()
	st, err := startStack(ctx, sessions)
	if err != nil {
		return err
	}
	defer st.close()
	gpx := fixtures.Bytes(fixtures.OsloTrondheim)
	if fixture != "" {
		if gpx, err = os.ReadFile(fixture); err != nil {
			return err
		}
	}
	tripID, err := benchtrip.Create(ctx, st.trips, gpx, benchUser, stageCount)
	if err != nil {
		return err
	}

	mcpCall, closeSessions, err := st.sessions(ctx, client, sessions, tripID, stageCount)
	if err != nil {
		return err
	}
	defer closeSessions()
	direct, err := st.directClient()
	if err != nil {
		return err
	}
	apiCall := func(ctx context.Context, _ int) error { return direct.getTrip(ctx, tripID, stageCount) }

	// Warm up each path, then measure each alone.
	if _, _, err := load(ctx, sessions, 2*time.Second, mcpCall); err != nil {
		return fmt.Errorf("mcp warm-up: %w", err)
	}
	stopProfile, err := startProfile(profile)
	if err != nil {
		return err
	}
	mcpCPU := cpuTime()
	mcpN, lat, err := load(ctx, sessions, duration, mcpCall)
	mcpCPU = cpuTime() - mcpCPU
	stopProfile()
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	if _, _, err := load(ctx, sessions, 2*time.Second, apiCall); err != nil {
		return fmt.Errorf("api warm-up: %w", err)
	}
	apiCPU := cpuTime()
	apiN, apiLat, err := load(ctx, sessions, duration, apiCall)
	apiCPU = cpuTime() - apiCPU
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}
	slices.Sort(lat)
	cps := float64(mcpN) / duration.Seconds()
	apiRPS := float64(apiN) / duration.Seconds()
	fmt.Printf("mcp get-trip calls_per_s=%.0f p50_ms=%.2f p99_ms=%.2f api_direct_rps=%.0f ratio=%.2f\n",
		cps, ms(percentile(lat, 50)), ms(percentile(lat, 99)), apiRPS, cps/apiRPS)
	slices.Sort(apiLat)
	fmt.Fprintf(os.Stderr, "api-direct p50_ms=%.2f p99_ms=%.2f (the read the MCP call wraps, alone on the same cores)\n",
		ms(percentile(apiLat, 50)), ms(percentile(apiLat, 99)))
	if measureFloorToo {
		if err := reportFloor(ctx, st, sessions, duration, tripID, stageCount, apiRPS); err != nil {
			return err
		}
	}
	if reportCPU && mcpN > 0 && apiN > 0 {
		mcpPer, apiPer := mcpCPU/time.Duration(mcpN), apiCPU/time.Duration(apiN)
		fmt.Fprintf(os.Stderr, "cpu_per_call mcp_us=%d api_direct_us=%d cpu_ratio=%.2f\n",
			mcpPer.Microseconds(), apiPer.Microseconds(), float64(apiPer)/float64(mcpPer))
	}
	return nil
}

// reportFloor measures the bare-SDK floor (floor.go) on the digest the real
// service answers with and prints it with the ratio bound it implies.
func reportFloor(ctx context.Context, st *benchStack, sessions int, duration time.Duration, tripID string, stages int, apiRPS float64) error {
	probe, err := st.connectWire(ctx, 1)
	if err != nil {
		return err
	}
	digest, err := probe[0].digest(ctx, tripID, stages)
	probe[0].close()
	if err != nil {
		return err
	}
	floorRPS, lat, err := st.measureFloor(ctx, sessions, duration, digest, tripID, stages)
	if err != nil {
		return err
	}
	slices.Sort(lat)
	fmt.Fprintf(os.Stderr, "sdk-floor calls_per_s=%.0f p50_ms=%.2f p99_ms=%.2f digest_bytes=%d ratio_bound=%.2f\n",
		floorRPS, ms(percentile(lat, 50)), ms(percentile(lat, 99)), len(digest), floorRPS/(floorRPS+apiRPS))
	return nil
}
