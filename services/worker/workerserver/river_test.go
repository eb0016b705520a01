package workerserver_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore/pgtest"
)

// River is the peer of the pipeline hop in `make bench-pipeline`: the
// PostgreSQL job queue a Go team would pick instead of an event store, a
// relay and JetStream (github.com/riverqueue/river, a dependency of this
// benchmark only). Its round trip does what ours does, with the same number
// of commits: the client inserts a command row and its job in one
// transaction; the worker writes a result row and completes the job in one
// transaction. Same PostgreSQL server, same process (client and worker in
// the benchmark's process, as the trip store and the worker are), a pool of
// pipelineConcurrency workers, FetchCooldown 1 ms (River's default, 100 ms,
// would measure its cooldown, not its path). River's tables live in a schema
// of their own, migrated by rivermigrate and dropped at the end.
type riverRig struct {
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]

	mu      sync.Mutex
	waiters map[int64]chan time.Time
	cpu     cpuClock
}

// hopArgs is the job: the command it answers.
type hopArgs struct {
	Command int64 `json:"command"`
}

func (hopArgs) Kind() string { return "roadbook_bench_hop" }

// hopWorker writes the result and completes the job in one transaction,
// then tells the waiting client.
type hopWorker struct {
	river.WorkerDefaults[hopArgs]
	rig *riverRig
}

func (w *hopWorker) Work(ctx context.Context, job *river.Job[hopArgs]) error {
	tx, err := w.rig.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `INSERT INTO hop_result (command_id) VALUES ($1)`, job.Args.Command); err != nil {
		return err
	}
	if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	end := time.Now()
	w.rig.mu.Lock()
	ch := w.rig.waiters[job.Args.Command]
	delete(w.rig.waiters, job.Args.Command)
	w.rig.mu.Unlock()
	if ch != nil {
		ch <- end
	}
	return nil
}

func startRiverHop(b *testing.B) *riverRig {
	ctx := context.Background()
	server := pgtest.ServerURL()
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	schema := "river_" + hex.EncodeToString(rnd[:])
	admin, err := pgx.Connect(ctx, server)
	require.NoError(b, err)
	_, err = admin.Exec(ctx, "CREATE SCHEMA "+schema)
	require.NoError(b, err)
	require.NoError(b, admin.Close(ctx))
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, server)
		if err != nil {
			b.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			b.Errorf("drop schema %s: %v", schema, err)
		}
	})

	u, err := url.Parse(server)
	require.NoError(b, err)
	q := u.Query()
	q.Set("search_path", schema)
	app := "hop_river_" + hex.EncodeToString(rnd[:4])
	q.Set("application_name", app) // finds its backends for the CPU figures
	u.RawQuery = q.Encode()
	pool, err := pgxpool.New(ctx, u.String())
	require.NoError(b, err)
	b.Cleanup(pool.Close)

	driver := riverpgxv5.New(pool)
	migrator, err := rivermigrate.New(driver, &rivermigrate.Config{Schema: schema, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	_, err = migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	require.NoError(b, err)
	_, err = pool.Exec(ctx, `CREATE TABLE hop_command (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload jsonb NOT NULL);
		CREATE TABLE hop_result (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, command_id bigint NOT NULL, done_at timestamptz NOT NULL DEFAULT now())`)
	require.NoError(b, err)

	rig := &riverRig{pool: pool, waiters: map[int64]chan time.Time{}, cpu: cpuClock{pool: pool, app: app}}
	workers := river.NewWorkers()
	river.AddWorker(workers, &hopWorker{rig: rig})
	rig.client, err = river.NewClient(driver, &river.Config{
		Schema:        schema,
		Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: pipelineConcurrency}},
		Workers:       workers,
		FetchCooldown: time.Millisecond,
		Logger:        slog.New(slog.DiscardHandler),
	})
	require.NoError(b, err)
	require.NoError(b, rig.client.Start(ctx))
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = rig.client.Stop(ctx)
	})
	return rig
}

// hops runs count River round trips one after the other and returns their
// latencies in milliseconds: wall time from before the client's transaction
// to the commit of the worker's.
func (r *riverRig) hops(ctx context.Context, tb testing.TB, count int) []float64 {
	tb.Helper()
	lat := make([]float64, 0, count)
	for range count {
		start := time.Now()
		tx, err := r.pool.Begin(ctx)
		require.NoError(tb, err)
		var id int64
		require.NoError(tb, tx.QueryRow(ctx, `INSERT INTO hop_command (payload) VALUES ('{"route":"tiny"}') RETURNING id`).Scan(&id))
		ch := make(chan time.Time, 1)
		r.mu.Lock()
		r.waiters[id] = ch
		r.mu.Unlock()
		_, err = r.client.InsertTx(ctx, tx, hopArgs{Command: id}, nil)
		require.NoError(tb, err)
		require.NoError(tb, tx.Commit(ctx))
		select {
		case end := <-ch:
			lat = append(lat, float64(end.Sub(start).Microseconds())/1000)
		case <-time.After(60 * time.Second):
			tb.Fatalf("river job for command %d: not done within 60 s", id)
		}
	}
	return lat
}
