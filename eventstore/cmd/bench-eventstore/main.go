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
	if err := run(context.Background(), *dbURL, *duration, *rounds, *warmup); err != nil {
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

func run(ctx context.Context, server string, duration time.Duration, rounds int, warmup time.Duration) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", rounds)
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
	var version, sync string
	_ = pool.QueryRow(ctx, `SELECT version()`).Scan(&version)
	_ = pool.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&sync)
	fmt.Fprintf(os.Stderr, "server: %s; synchronous_commit=%s; payload %d bytes protojson; %s per figure in %d alternating rounds after %s warm-up\n", version, sync, len(data), duration, rounds, warmup)

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
		// Warm both sides (connections, prepared statements), then
		// alternate short rounds so a load swing from other work on the
		// machine falls on both sides alike.
		if _, err := measure(ctx, sc.writers, warmup, insertOp); err != nil {
			return fmt.Errorf("%s baseline: %w", sc.name, err)
		}
		if _, err := measure(ctx, sc.writers, warmup, appendOp); err != nil {
			return fmt.Errorf("%s appends: %w", sc.name, err)
		}
		var baseLats, appendLats []time.Duration
		each := duration / time.Duration(rounds)
		for range rounds {
			l, err := measure(ctx, sc.writers, each, insertOp)
			if err != nil {
				return fmt.Errorf("%s baseline: %w", sc.name, err)
			}
			baseLats = append(baseLats, l...)
			if l, err = measure(ctx, sc.writers, each, appendOp); err != nil {
				return fmt.Errorf("%s appends: %w", sc.name, err)
			}
			appendLats = append(appendLats, l...)
		}
		measured := each * time.Duration(rounds)
		base := float64(len(baseLats)) / measured.Seconds()
		rate := float64(len(appendLats)) / measured.Seconds()
		p99 := percentile(appendLats, 99)
		fmt.Printf("eventstore %s appends_per_s=%.0f baseline_per_s=%.0f ratio=%.2f p99_ms=%.2f\n", sc.name, rate, base, rate/base, float64(p99.Microseconds())/1000)
	}
	return nil
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
