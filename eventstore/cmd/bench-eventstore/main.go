// Command bench-eventstore measures PostgreSQL event store appends against a
// baseline of raw single-row INSERT + commit on the same server, in the same
// run, with the same concurrency, payload size and durability settings
// (ARCHITECTURE §10: a benchmark reports a ratio to its baseline). It prints:
//
//	eventstore many-streams appends_per_s=N baseline_per_s=M ratio=R p99_ms=X
//	eventstore one-stream appends_per_s=N baseline_per_s=M ratio=R p99_ms=X
//
// After a warm-up of both sides, each figure's time is split into rounds that
// alternate baseline and appends, so load from other work on a shared
// machine falls on both alike. It works in a fresh schema of its own and
// drops it at the end.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/postgres"
)

func main() {
	dbURL := flag.String("database", envOr("ROADBOOK_TEST_DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server URL")
	duration := flag.Duration("duration", 10*time.Second, "measurement time per figure, split over -rounds")
	rounds := flag.Int("rounds", 5, "alternating baseline/append rounds per scenario (load drift on a shared machine hits both sides alike)")
	warmup := flag.Duration("warmup", 2*time.Second, "warm-up time of each side before a scenario's rounds")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the client to this file")
	withBounds := flag.Bool("bounds", false, "also measure the bounds: the append's SQL with the client's work taken away, and without each invariant in turn (bounds.go)")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-eventstore:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench-eventstore:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(context.Background(), *dbURL, figureConfig{duration: *duration, rounds: *rounds, warmup: *warmup}, *withBounds); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "bench-eventstore:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// payload is a typical small event (~200 bytes of protojson).
func payload() *structpb.Struct {
	s, err := structpb.NewStruct(map[string]any{
		"stageIndex": 3.0, "distanceM": 84213.5, "ascentM": 1240.0, "descentM": 1185.0,
		"routeHash": "9f2c7d4e1a0b6c3f8e5d2a1b4c7f0e3d", "pacing": "steady", "computedFor": "stages:4b1e9a2c",
	})
	if err != nil {
		panic(err)
	}
	return s
}

// figureConfig is how long one figure is measured: duration split over
// rounds, after warmup of each side.
type figureConfig struct {
	duration time.Duration
	rounds   int
	warmup   time.Duration
	cpu      *cpuMeter
}

func run(ctx context.Context, server string, cfg figureConfig, withBounds bool) error {
	if cfg.rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", cfg.rounds)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "bench_" + hex.EncodeToString(b[:])
	admin, err := pgxpool.New(ctx, server)
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return err
	}
	defer func() { _, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") }()

	u, err := url.Parse(server)
	if err != nil {
		return err
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("pool_max_conns", "20")
	q.Set("application_name", schema) // finds the pool's backends for the CPU figures
	u.RawQuery = q.Encode()
	store, err := postgres.Open(ctx, u.String())
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.Migrate(ctx); err != nil {
		return err
	}
	pool := store.Pool()
	// The baseline: the same jsonb payload, one row per INSERT, autocommit.
	if _, err := pool.Exec(ctx, `CREATE TABLE baseline (
		id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, stream_id text NOT NULL,
		data jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	p := payload()
	data, err := protojson.Marshal(p)
	if err != nil {
		return err
	}
	cfg.cpu = newCPUMeter(pool, schema)
	var version, sync string
	_ = pool.QueryRow(ctx, `SELECT version()`).Scan(&version)
	_ = pool.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&sync)
	fmt.Fprintf(os.Stderr, "server: %s; synchronous_commit=%s; payload %d bytes protojson; %s per figure in %d alternating rounds after %s warm-up\n", version, sync, len(data), cfg.duration, cfg.rounds, cfg.warmup)

	for _, sc := range []struct {
		name    string
		writers int
		streams int
	}{{"many-streams", 16, 16}, {"one-stream", 1, 1}} {
		ids := make([]eventstore.StreamID, sc.streams)
		versions := make([]int64, sc.streams)
		for i := range ids {
			ids[i] = eventstore.StreamID(fmt.Sprintf("%s-%d", sc.name, i))
			if _, err := store.Append(ctx, eventstore.AppendRequest{Stream: ids[i], Expected: eventstore.NoStream(), Owner: "bench",
				Events: []eventstore.NewEvent{{Payload: p}}}); err != nil {
				return err
			}
			versions[i] = 1
		}
		appendOp := func(ctx context.Context, w int) error {
			res, err := store.Append(ctx, eventstore.AppendRequest{Stream: ids[w], Expected: eventstore.Exact(versions[w]),
				Events: []eventstore.NewEvent{{Payload: p}}})
			if err == nil {
				versions[w] = res.Version
			}
			return err
		}
		insertOp := func(ctx context.Context, w int) error {
			_, err := pool.Exec(ctx, `INSERT INTO baseline (stream_id, data) VALUES ($1, $2::jsonb)`, string(ids[w]), string(data))
			return err
		}
		f, err := alternate(ctx, sc.writers, cfg, insertOp, appendOp)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		p99 := percentile(f.lats, 99)
		fmt.Printf("eventstore %s appends_per_s=%.0f baseline_per_s=%.0f ratio=%.2f p99_ms=%.2f\n", sc.name, f.rate, f.base, f.rate/f.base, float64(p99.Microseconds())/1000)
		fmt.Fprintf(os.Stderr, "  %s %s\n", sc.name, f.cpuLine())
	}
	if withBounds {
		return runBounds(ctx, pool, string(data), "{}", cfg)
	}
	return nil
}

// alternate warms both sides (connections, prepared statements), then
// alternates short rounds of base and op so a load swing from other work on
// the machine falls on both alike; it returns op's and base's rates and
// op's latencies.
func alternate(ctx context.Context, writers int, cfg figureConfig, base, op func(context.Context, int) error) (figure, error) {
	if _, err := measure(ctx, writers, cfg.warmup, base); err != nil {
		return figure{}, fmt.Errorf("baseline: %w", err)
	}
	if _, err := measure(ctx, writers, cfg.warmup, op); err != nil {
		return figure{}, fmt.Errorf("appends: %w", err)
	}
	var (
		baseLats, opLats []time.Duration
		baseCPU, opCPU   [2]time.Duration // client, server
		timed            = func(d time.Duration, f func(context.Context, int) error, cpu *[2]time.Duration) ([]time.Duration, error) {
			r0 := cfg.cpu.read(ctx)
			l, err := measure(ctx, writers, d, f)
			c, s := cfg.cpu.read(ctx).since(r0)
			cpu[0] += c
			cpu[1] += s
			return l, err
		}
	)
	each := cfg.duration / time.Duration(cfg.rounds)
	for range cfg.rounds {
		l, err := timed(each, base, &baseCPU)
		if err != nil {
			return figure{}, fmt.Errorf("baseline: %w", err)
		}
		baseLats = append(baseLats, l...)
		if l, err = timed(each, op, &opCPU); err != nil {
			return figure{}, fmt.Errorf("appends: %w", err)
		}
		opLats = append(opLats, l...)
	}
	measured := (each * time.Duration(cfg.rounds)).Seconds()
	per := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }
	return figure{
		rate: float64(len(opLats)) / measured, base: float64(len(baseLats)) / measured, lats: opLats,
		clientUS: per(opCPU[0], len(opLats)), serverUS: per(opCPU[1], len(opLats)),
		baseClientUS: per(baseCPU[0], len(baseLats)), baseServerUS: per(baseCPU[1], len(baseLats)),
	}, nil
}

// figure is one scenario's measurement: rates, the appends' latencies, and
// CPU per operation of the client and of its PostgreSQL backends.
type figure struct {
	rate, base                 float64
	lats                       []time.Duration
	clientUS, serverUS         float64
	baseClientUS, baseServerUS float64
}

// cpuLine is the CPU per operation of both sides and the ratio a machine
// saturated by this work alone would give (baseline CPU ÷ append CPU).
func (f figure) cpuLine() string {
	return fmt.Sprintf("cpu_us client=%.0f server=%.0f baseline_client=%.0f baseline_server=%.0f cpu_ratio=%.2f",
		f.clientUS, f.serverUS, f.baseClientUS, f.baseServerUS, (f.baseClientUS+f.baseServerUS)/(f.clientUS+f.serverUS))
}

// measure runs op on writers goroutines (writer w always passes w) for d
// and returns the latency of every operation that started within d.
func measure(ctx context.Context, writers int, d time.Duration, op func(context.Context, int) error) ([]time.Duration, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		lats  []time.Duration
		first error
	)
	end := time.Now().Add(d)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for {
				t0 := time.Now()
				if t0.After(end) {
					break
				}
				if err := op(ctx, w); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if len(lats) == 0 {
		return nil, fmt.Errorf("no operation completed")
	}
	return lats, nil
}

// percentile returns the p-th percentile of lats (sorted in place).
func percentile(lats []time.Duration, p int) time.Duration {
	slices.Sort(lats)
	return lats[len(lats)*p/100]
}
