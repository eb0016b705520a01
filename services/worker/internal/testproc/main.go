// Command testproc runs one worker (workerserver) against PostgreSQL and an
// external NATS, as a real process the fault tests can kill -9. Flags add
// the faults: a slow data provider that announces itself on stdout (so a
// test can kill the process mid-job) and an exit between a relay batch's
// publish acks and its cursor save.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/services/worker/workerserver"
	"github.com/roadbook/roadbook/testkit"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "testproc:", err)
		os.Exit(1)
	}
}

func run() error {
	db := flag.String("db", "", "PostgreSQL URL (schema already migrated)")
	natsURL := flag.String("nats", "", "NATS URL")
	ackWait := flag.Duration("ack-wait", 2*time.Second, "consumer AckWait")
	slow := flag.Duration("slow-provider", 0, "a weather provider that takes this long (0: none)")
	crash := flag.Bool("crash-after-publish", false, "exit(3) after the first relay batch is acked, before its cursor is saved")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	es, err := postgres.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer es.Close()
	nc, err := testkit.Connect(*natsURL)
	if err != nil {
		return err
	}
	defer nc.Close()
	cons := workerserver.DefaultConsumerOptions()
	cons.AckWait = *ackWait
	cfg := workerserver.Config{
		Store: es, NATS: nc, Consumers: &cons, LeaseTTL: 2 * time.Second, Concurrency: 2,
		RelayPollInterval: 50 * time.Millisecond, ReconcileInterval: time.Hour,
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if *slow > 0 {
		cfg.Providers = []workerserver.Provider{slowProvider{d: *slow}}
	}
	if *crash {
		cfg.AfterPublish = func(batch []eventstore.RecordedEvent) {
			fmt.Printf("PUBLISHED %d\n", len(batch))
			os.Exit(3)
		}
	}
	srv, err := workerserver.New(cfg)
	if err != nil {
		return err
	}
	fmt.Println("READY")
	return srv.Run(ctx)
}

// slowProvider stands for a slow data provider: it announces the job on
// stdout, then takes its time.
type slowProvider struct{ d time.Duration }

func (slowProvider) Families() []trip.Family { return []trip.Family{trip.FamilyWeather} }

func (p slowProvider) Analyze(ctx context.Context, t trip.State, _ []trip.Stage) (workerserver.ProviderResult, error) {
	fmt.Printf("PROVIDER %s\n", t.ID)
	select {
	case <-ctx.Done():
		return workerserver.ProviderResult{}, ctx.Err()
	case <-time.After(p.d):
	}
	return workerserver.ProviderResult{}, nil
}
