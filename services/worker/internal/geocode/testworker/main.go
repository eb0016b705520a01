// Command testworker is a worker process cut down to geocoding, for the
// multi-process proof in ../proof_test.go: it runs the geocode responder and
// label queue over the Nominatim client on the one upstream mechanism (KV
// pacer and KV cache on an external NATS), exactly as the worker wires them,
// and nothing else. It prints "ready" once subscribed and stops on SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/services/worker/internal/geocode/nominatim"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

func main() {
	natsURL := flag.String("nats", "", "NATS URL")
	base := flag.String("nominatim", "", "Nominatim base URL")
	name := flag.String("name", "w", "process name (in the User-Agent and label subjects)")
	breakerOpen := flag.Duration("breaker-open", 30*time.Second, "breaker open timeout")
	labelRetry := flag.Duration("label-retry", 30*time.Second, "label pause after an outage")
	flag.Parse()
	if err := run(*natsURL, *base, *name, *breakerOpen, *labelRetry); err != nil {
		fmt.Fprintln(os.Stderr, "testworker:", err)
		os.Exit(1)
	}
}

func run(natsURL, base, name string, breakerOpen, labelRetry time.Duration) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	nc, err := nats.Connect(natsURL, nats.MaxReconnects(-1))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	pacer, err := upstream.NewKVPacer(ctx, js, "", "nominatim", nominatim.PaceInterval)
	if err != nil {
		return err
	}
	cache, err := upstream.NewKVCache(ctx, js, "roadbook_geocode_cache", nominatim.CacheTTL, 0)
	if err != nil {
		return err
	}
	up, err := upstream.New("nominatim", upstream.WithBaseURL(base),
		upstream.WithUserAgent("Roadbook-testworker/1.0 ("+name+"; tests@roadbook.invalid)"),
		upstream.WithPacer(pacer), upstream.WithCache(cache), upstream.WithBreaker(1, breakerOpen))
	if err != nil {
		return err
	}
	client, err := nominatim.New(up)
	if err != nil {
		return err
	}
	sink := func(_ context.Context, tripID, geocoder string, labels []geocode.StageLabel) error {
		b, err := json.Marshal(labels)
		if err != nil {
			return err
		}
		return nc.Publish("test.labels."+tripID, b)
	}
	q, err := geocode.NewQueue(client, sink, geocode.QueueOptions{Interval: nominatim.PaceInterval, LabelRetry: labelRetry, Batch: 2, Logger: log})
	if err != nil {
		return err
	}
	go func() { _ = q.Run(ctx) }()
	r, err := geocode.NewResponder(nc, q, geocode.ResponderOptions{Logger: log})
	if err != nil {
		return err
	}
	if err := r.Start(ctx); err != nil {
		return err
	}
	// Test plumbing: label requests and progress reads for this process.
	if _, err := nc.Subscribe("test.label."+name, func(m *nats.Msg) {
		var req struct {
			Trip   string
			Stages []geocode.StageEnds
		}
		if err := json.Unmarshal(m.Data, &req); err != nil {
			_ = m.Respond([]byte(err.Error()))
			return
		}
		if err := q.Label(ctx, req.Trip, req.Stages); err != nil {
			_ = m.Respond([]byte(err.Error()))
			return
		}
		_ = m.Respond([]byte("ok"))
	}); err != nil {
		return err
	}
	if _, err := nc.Subscribe("test.progress."+name, func(m *nats.Msg) {
		p, _ := q.Progress(string(m.Data))
		b, _ := json.Marshal(struct {
			State       string
			Done, Total int
		}{p.State.String(), p.Done, p.Total})
		_ = m.Respond(b)
	}); err != nil {
		return err
	}
	if err := nc.Flush(); err != nil {
		return err
	}
	fmt.Println("ready")
	<-ctx.Done()
	return r.Stop()
}
