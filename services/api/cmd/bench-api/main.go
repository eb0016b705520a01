// Command bench-api measures GetTrip on a 30-stage trip: 64 concurrent
// Connect-JSON clients for 20 s against the real API (PostgreSQL store,
// embedded NATS, auth, validation, metrics), then the same clients for 20 s
// against a baseline handler on the same server that answers the same
// prebuilt response bytes. It prints
//
//	api get-trip rps=N p50_ms=A p99_ms=B baseline_rps=M ratio=R
//
// The database is ROADBOOK_TEST_DATABASE_URL (default the local cluster); the
// run uses a schema of its own and drops it afterwards.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore/postgres"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
	"github.com/roadbook/roadbook/services/api/apiserver"
	"github.com/roadbook/roadbook/services/api/auth"
	"github.com/roadbook/roadbook/services/api/tripstore"
)

const baselinePath = "/bench.Baseline/GetTrip"

func main() {
	clients := flag.Int("clients", 64, "concurrent clients")
	duration := flag.Duration("duration", 20*time.Second, "measuring time per phase")
	stages := flag.Int("stages", 30, "stages of the trip")
	flag.Parse()
	if err := run(*clients, *duration, *stages); err != nil {
		log.Fatal(err)
	}
}

func run(clients int, duration time.Duration, stageCount int) error {
	ctx := context.Background()
	dbURL, drop, err := schema(ctx)
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
	ns, err := natsserver.NewServer(&natsserver.Options{Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		return err
	}
	ns.Start()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(10 * time.Second) {
		return fmt.Errorf("nats did not start")
	}
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		return err
	}
	defer nc.Close()

	iss, err := auth.NewHS256Issuer("bench", []byte(strings.Repeat("b", 32)), "roadbook-bench")
	if err != nil {
		return err
	}
	verifier, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(iss.Key())})
	if err != nil {
		return err
	}
	srv, err := apiserver.New(apiserver.Config{Store: store, NATS: nc, Verifier: verifier,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}

	tripID, err := thirtyStageTrip(ctx, tripstore.New(store, nil), stageCount)
	if err != nil {
		return err
	}
	token, err := iss.Mint(auth.Claims{Subject: "bench", Audience: []string{auth.DefaultAudience},
		ExpiresAt: time.Now().Add(time.Hour), Scopes: []auth.Scope{auth.ScopeRead}})
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

	// Warm up both paths, then measure each alone.
	if _, _, err := load(ctx, clients, 2*time.Second, call); err != nil {
		return err
	}
	apiN, lat, err := load(ctx, clients, duration, call)
	if err != nil {
		return err
	}
	if _, _, err := load(ctx, clients, 2*time.Second, baseline); err != nil {
		return err
	}
	baseN, _, err := load(ctx, clients, duration, baseline)
	if err != nil {
		return err
	}
	slices.Sort(lat)
	rps := float64(apiN) / duration.Seconds()
	baseRPS := float64(baseN) / duration.Seconds()
	fmt.Printf("api get-trip rps=%.0f p50_ms=%.2f p99_ms=%.2f baseline_rps=%.0f ratio=%.2f\n",
		rps, ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]), baseRPS, rps/baseRPS)
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// load runs fn from n goroutines for d and returns the calls completed and
// their latencies; any failed call fails the run.
func load(ctx context.Context, n int, d time.Duration, fn func(context.Context) error) (int, []time.Duration, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		all   []time.Duration
		fail  atomic.Pointer[error]
		count atomic.Int64
	)
	deadline := time.Now().Add(d)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) && fail.Load() == nil {
				start := time.Now()
				if err := fn(ctx); err != nil {
					fail.Store(&err)
					return
				}
				mine = append(mine, time.Since(start))
				count.Add(1)
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
	return int(count.Load()), all, nil
}

// thirtyStageTrip uploads the Oslo–Trondheim fixture through the trip store
// and records stageCount stages of equal point count the way the stages
// worker records its result, then the analysis it starts, so GetTrip folds
// a realistic stream.
func thirtyStageTrip(ctx context.Context, ts *tripstore.Store, stageCount int) (string, error) {
	raw, err := os.ReadFile("testdata/long_brouter_oslo-trondheim_fastbike.gpx")
	if err != nil {
		return "", err
	}
	r, err := route.ReadGPX(bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	hash, err := ts.PutRoute(ctx, r.Points)
	if err != nil {
		return "", err
	}
	ref, _ := tripstore.HashBytes(hash)
	gain, loss := route.Elevation(r.Points)
	id := uuid.New()
	_, err = ts.Execute(ctx, tripstore.User("bench"), id, trip.Create{Title: "Oslo – Trondheim", Upload: &trip.CreateUpload{
		Filename: "oslo.gpx", SizeBytes: int64(len(raw)), Route: trip.RouteInfo{Hash: hash, PointCount: len(r.Points),
			DistanceM: route.Length(r.Points), ElevationKnown: true, AscentM: gain, DescentM: loss}}}, tripstore.Options{BlobRefs: [][]byte{ref}})
	if err != nil {
		return "", err
	}
	l, err := ts.Load(ctx, tripstore.System(), id)
	if err != nil {
		return "", err
	}
	pts := r.Points
	per := (len(pts) - 1) / stageCount
	var stages []trip.Stage
	for i := range stageCount {
		lo, hi := i*per, (i+1)*per
		if i == stageCount-1 {
			hi = len(pts) - 1
		}
		span := pts[lo : hi+1]
		up, down := route.Elevation(span)
		geom := route.Simplify(span, route.DecimationToleranceM)
		stages = append(stages, trip.Stage{Start: span[0], End: span[len(span)-1], Geometry: geom,
			DistanceM: route.Length(geom), AscentM: up, DescentM: down, Origin: trip.OriginPaced})
	}
	if _, err := ts.Execute(ctx, tripstore.System(), id, trip.RecordStagesComputed{For: l.State.StagesProgress.For, Stages: stages}, tripstore.Options{}); err != nil {
		return "", err
	}
	l, err = ts.Load(ctx, tripstore.System(), id)
	if err != nil {
		return "", err
	}
	for _, a := range l.State.Analyses {
		var done []trip.StageAnalysis
		for _, s := range a.Stages {
			done = append(done, trip.StageAnalysis{Stage: s, Families: map[string]string{"geometry": "available"}})
		}
		if _, err := ts.Execute(ctx, tripstore.System(), id, trip.RecordAnalysis{AnalysisID: a.ID, Stages: done, Final: true}, tripstore.Options{}); err != nil {
			return "", err
		}
	}
	return id.String(), nil
}

// schema creates a schema of the run's own and returns a URL whose
// connections use it, and a function that drops it.
func schema(ctx context.Context) (string, func(), error) {
	server := os.Getenv("ROADBOOK_TEST_DATABASE_URL")
	if server == "" {
		server = "postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "bench_api_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(server)
	if err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	drop := func() {
		c, err := pgx.Connect(context.Background(), server)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP SCHEMA "+name+" CASCADE")
	}
	return u.String(), drop, nil
}
