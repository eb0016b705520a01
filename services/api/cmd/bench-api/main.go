// Command bench-api measures GetTrip on a 30-stage trip: 64 concurrent
// Connect-JSON clients for 20 s against the real API (PostgreSQL store,
// embedded NATS, auth, validation, metrics), then the same clients for 20 s
// against a baseline handler on the same server that answers the same
// prebuilt response bytes. It prints
//
//	api get-trip rps=N p50_ms=A p99_ms=B baseline_rps=M ratio=R
//
// Then the write phase: -write-clients writers, each on a trip of its own,
// edit a stage (UpdateStage, the length of day 1 alternating by 1 km, each
// edit at the version the last one answered) for the same time, against the
// same writers appending one event to a stream of their own straight into
// the event store (Append at the expected version, no API): the floor any
// write through the API stands on. It prints
//
//	api edit rps=N p50_ms=A p99_ms=B append_rps=M append_p50_ms=C ratio=R cpu_ms_per_op=P
//
// where ratio = edit rps / append rps: what the API's write path (auth,
// validation, idempotency lookup, load, decide, summary, the response
// digest) keeps of the store's own append rate; and P is this process's CPU
// per edit, warm-up included, clients and API together (on a busy machine
// it swings less than the rates). With -write-agent the line is api
// edit-agent: each edit carries a fresh idempotency key, as the MCP
// service's writes do, and is followed by a GetTrip of the trip, the read
// an agent makes next; one op is both calls.
//
// With -cycle N only the cycle phase runs: N clients each run a soak
// agent's cycle of RPCs (cycle.go) against the API, which runs as a process
// of its own (apiproc.go), with a `roadbook worker` process (-worker-bin,
// else built from the workspace) computing stages and analyses, and it
// prints
//
//	api cycle cycles_per_s=N cpu_ms_per_cycle=C calls_per_cycle=K cpu_ms_per_call=P bench_cpu_ms_per_cycle=B p50_ms=… p99_ms=…
//
// where C and P are the API process's CPU and B this process's (clients and
// the embedded NATS server).
//
// The database is ROADBOOK_TEST_DATABASE_URL (default the local cluster); the
// run uses a schema of its own and drops it afterwards.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/testkit"
	"github.com/roadbook/roadbook/testkit/benchtrip"
	"github.com/roadbook/roadbook/testkit/fixtures"
	"github.com/roadbook/roadbook/tripstore"
)

const baselinePath = "/bench.Baseline/GetTrip"

var (
	// cycleClients is -cycle: the clients of the agent-cycle phase (0: skip it).
	cycleClients int
	// cycleProfile is -cycle-cpuprofile: where the cycle phase's CPU profile goes.
	cycleProfile string
	// workerBin is -worker-bin: the roadbook binary the cycle's worker runs.
	workerBin string
)

func main() {
	clients := flag.Int("clients", 64, "concurrent clients")
	duration := flag.Duration("duration", 20*time.Second, "measuring time per phase")
	stages := flag.Int("stages", 30, "stages of the trip")
	writers := flag.Int("write-clients", 16, "concurrent writers in the write phase (0: skip it)")
	flag.StringVar(&writeProfile, "write-cpuprofile", "", "write a CPU profile of the edit phase to this file")
	flag.BoolVar(&writeAgent, "write-agent", false, "edit as an MCP agent does: a fresh idempotency key per edit, then get_trip")
	flag.IntVar(&cycleClients, "cycle", 0, "run only the agent-cycle phase with this many clients (0: the read and write phases)")
	flag.StringVar(&cycleProfile, "cycle-cpuprofile", "", "write a CPU profile of the API process in the cycle phase (its whole life) to this file")
	flag.StringVar(&workerBin, "worker-bin", "", "the roadbook binary whose worker the cycle phase runs (empty: go build ./cmd/roadbook)")
	flag.Parse()
	if spec := os.Getenv(serveEnv); spec != "" {
		if err := serveAPI(spec); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(*clients, *writers, *duration, *stages); err != nil {
		log.Fatal(err)
	}
}

func run(clients, writers int, duration time.Duration, stageCount int) error {
	ctx := context.Background()
	dbURL, drop, err := pgtest.NewSchema(ctx, "bench_api")
	if err != nil {
		return err
	}
	defer drop()
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.Migrate(ctx); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "bench-api-nats")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ns, err := testkit.StartNATS(dir, -1)
	if err != nil {
		return err
	}
	defer ns.Stop()
	nc, err := testkit.Connect(ns.URL())
	if err != nil {
		return err
	}
	defer nc.Close()

	iss, err := benchIssuer()
	if err != nil {
		return err
	}
	if cycleClients > 0 {
		return runCycle(ctx, dbURL, ns.URL(), dir, iss, duration)
	}
	srv, err := newServer(store, nc, iss)
	if err != nil {
		return err
	}

	tripID, err := benchtrip.Create(ctx, tripstore.New(store, nil), fixtures.Bytes(fixtures.OsloTrondheim), "bench", stageCount)
	if err != nil {
		return err
	}
	token, err := iss.Mint(auth.Claims{Subject: "bench", Audience: []string{auth.DefaultAudience},
		ExpiresAt: time.Now().Add(time.Hour), Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	if err != nil {
		return err
	}

	// The baseline is a Connect handler on the same server answering the
	// same response message, prebuilt once: both phases pay the same HTTP,
	// JSON encoding and client decoding, so the ratio isolates the API's own
	// work (auth, validation, store read, digest).
	var prebuilt *roadbookv1.GetTripResponse
	mux := http.NewServeMux()
	mux.Handle("/", srv.Handler())
	mux.Handle(baselinePath, connect.NewUnaryHandler(baselinePath,
		func(context.Context, *connect.Request[roadbookv1.GetTripRequest]) (*connect.Response[roadbookv1.GetTripResponse], error) {
			return connect.NewResponse(prebuilt), nil
		}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}

	client := roadbookv1connect.NewTripServiceClient(hc, base, connect.WithProtoJSON())
	baseClient := connect.NewClient[roadbookv1.GetTripRequest, roadbookv1.GetTripResponse](hc, base+baselinePath, connect.WithProtoJSON())
	check := func(resp *connect.Response[roadbookv1.GetTripResponse], err error) error {
		if err == nil && len(resp.Msg.Trip.Stages) != stageCount {
			err = fmt.Errorf("got %d stages", len(resp.Msg.Trip.Stages))
		}
		return err
	}
	request := func() *connect.Request[roadbookv1.GetTripRequest] {
		req := connect.NewRequest(&roadbookv1.GetTripRequest{TripId: tripID})
		req.Header().Set("Authorization", "Bearer "+token)
		return req
	}
	call := func(ctx context.Context) error { return check(client.GetTrip(ctx, request())) }
	baseline := func(ctx context.Context) error { return check(baseClient.CallUnary(ctx, request())) }
	resp, err := client.GetTrip(ctx, request())
	if err != nil {
		return err
	}
	prebuilt = resp.Msg

	// Warm up each path, then measure each alone.
	apiN, lat, err := phase(clients, 2*time.Second, duration, func(int) error { return call(ctx) })
	if err != nil {
		return err
	}
	baseN, _, err := phase(clients, 2*time.Second, duration, func(int) error { return baseline(ctx) })
	if err != nil {
		return err
	}
	rps := float64(apiN) / duration.Seconds()
	baseRPS := float64(baseN) / duration.Seconds()
	fmt.Printf("api get-trip rps=%.0f p50_ms=%.2f p99_ms=%.2f baseline_rps=%.0f ratio=%.2f\n",
		rps, ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]), baseRPS, rps/baseRPS)
	if writers == 0 {
		return nil
	}
	return writePhase(ctx, store, client, roadbookv1connect.NewStageEditServiceClient(hc, base, connect.WithProtoJSON()),
		token, writers, duration, stageCount)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
