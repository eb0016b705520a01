// Package audit checks the event store after a run, from the database and
// JetStream themselves rather than from what the services say: every
// stream's versions contiguous from 1 and matching its head row, every
// requested computation with exactly one terminal event, every stored event
// published to the EVENTS stream exactly once, and every write an agent was
// acknowledged still there (or its trip deleted, leaving no events).
package audit

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Report is what the audit found. Every "Bad" count must be 0.
type Report struct {
	// Streams and Events are what the store holds at the end.
	Streams, Events int64
	// GapStreams have versions that do not run 1..n, or whose head row's
	// version is not the last event's.
	GapStreams int64
	// Requests is the number of computation requests; ZeroTerminal and
	// ManyTerminal are those with no, or more than one, terminal event.
	Requests, ZeroTerminal, ManyTerminal int64
	// Published is the number of distinct store events found on EVENTS;
	// Lost are store events never published; Doubled are event ids
	// published more than once.
	Published, Lost, Doubled int64
	// AckedMissing are agent-acknowledged writes whose version is not in
	// the store although the trip was not deleted; DeletedLeftovers are
	// deleted trips that still have events or a head row.
	AckedMissing, DeletedLeftovers int64
	// Examples name a few offenders, for the log.
	Examples []string
}

// OK reports whether nothing was lost, doubled or left inconsistent.
func (r Report) OK() bool {
	return r.GapStreams == 0 && r.ZeroTerminal == 0 && r.ManyTerminal == 0 && r.Lost == 0 && r.Doubled == 0 &&
		r.AckedMissing == 0 && r.DeletedLeftovers == 0
}

// terminal names, per request type, the events that end its computation
// (services/worker/internal/job.For maps requests to jobs; the workers
// record results with the request event as causation).
var terminal = map[string][]string{
	"RouteImported":     {"StagesComputed", "StagesFailed", "StagesSuperseded"},
	"AnalysisRequested": {"AnalysisCompleted", "AnalysisFailed", "AnalysisSuperseded"},
	"TripCreated":       {"RouteImported", "RouteImportFailed"}, // only when created from a URL
}

// Ledger is what the agents were told (trip id → highest acknowledged
// version) and which trips they deleted.
type Ledger struct {
	Acked   map[string]int64
	Deleted map[string]bool
	// DeleteSent are trips whose confirmed delete was sent; a tombstone
	// there is the delete done, its answer lost when the run ended.
	DeleteSent map[string]bool
}

// Run audits the store at dbURL and the EVENTS stream at natsURL.
func Run(ctx context.Context, dbURL, natsURL string, ledger Ledger) (Report, error) {
	var r Report
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return r, err
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM streams), (SELECT count(*) FROM events)`).Scan(&r.Streams, &r.Events); err != nil {
		return r, err
	}
	rows, err := conn.Query(ctx, `
		WITH e AS (SELECT stream_id, count(*) n, min(version) lo, max(version) hi FROM events GROUP BY stream_id)
		SELECT e.stream_id FROM e LEFT JOIN streams s USING (stream_id)
		WHERE e.lo <> 1 OR e.hi <> e.n OR s.version IS DISTINCT FROM e.hi`)
	if err != nil {
		return r, err
	}
	gaps, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return r, err
	}
	r.GapStreams = int64(len(gaps))
	r.example("gap", gaps)
	for req, ends := range terminal {
		cond := ""
		if req == "TripCreated" {
			cond = ` AND q.data::jsonb ? 'url'`
		}
		var ins []string
		for _, e := range ends {
			ins = append(ins, "'"+e+"'")
		}
		var total, zero, many int64
		err := conn.QueryRow(ctx, fmt.Sprintf(`
			WITH q AS (SELECT event_id, stream_id, data FROM events WHERE split_part(type, '.', -1) = '%s'),
			     t AS (SELECT q.event_id, (SELECT count(*) FROM events x WHERE x.stream_id = q.stream_id
			             AND x.metadata->>'causationId' = q.event_id::text AND split_part(x.type, '.', -1) IN (%s)) n
			           FROM q WHERE true %s)
			SELECT count(*), count(*) FILTER (WHERE n = 0), count(*) FILTER (WHERE n > 1) FROM t`, req, strings.Join(ins, ","), cond)).Scan(&total, &zero, &many)
		if err != nil {
			return r, fmt.Errorf("terminal events of %s: %w", req, err)
		}
		r.Requests += total
		r.ZeroTerminal += zero
		r.ManyTerminal += many
		if zero+many > 0 {
			r.Examples = append(r.Examples, fmt.Sprintf("%s: %d without a terminal event, %d with several", req, zero, many))
		}
	}
	// Every stored event on EVENTS exactly once.
	stored := map[string]bool{}
	// The relay publishes trip streams only (subjects events.trip.<id>.<type>).
	rows, err = conn.Query(ctx, `SELECT event_id::text FROM events WHERE stream_id LIKE 'trip-%'`)
	if err != nil {
		return r, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return r, err
	}
	for _, id := range ids {
		stored[id] = true
	}
	seen, err := published(ctx, natsURL)
	if err != nil {
		return r, err
	}
	var lost []string
	for id := range stored {
		if seen[id] == 0 {
			lost = append(lost, id)
		} else {
			r.Published++
		}
	}
	r.Lost = int64(len(lost))
	r.example("not published", lost)
	var doubled []string
	for id, n := range seen {
		if n > 1 {
			doubled = append(doubled, id)
		}
	}
	r.Doubled = int64(len(doubled))
	r.example("published twice", doubled)
	// The agents' acknowledgements.
	for id, v := range ledger.Acked {
		stream := "trip-" + id
		var hi int64
		var tomb bool
		if err := conn.QueryRow(ctx, `SELECT coalesce((SELECT max(version) FROM events WHERE stream_id = $1), 0),
			EXISTS (SELECT 1 FROM tombstones WHERE stream_id = $1)`, stream).Scan(&hi, &tomb); err != nil {
			return r, err
		}
		switch {
		case ledger.Deleted[id] && (hi != 0 || !tomb):
			r.DeletedLeftovers++
			r.example("deleted but left", []string{stream})
		case !ledger.Deleted[id] && ledger.DeleteSent[id] && tomb && hi == 0:
			// Deleted; the agent stopped before reading the answer.
		case !ledger.Deleted[id] && hi < v:
			r.AckedMissing++
			r.example(fmt.Sprintf("acked v%d, store has v%d", v, hi), []string{stream})
		}
	}
	return r, nil
}

func (r *Report) example(what string, ids []string) {
	for i, id := range ids {
		if i == 3 || len(r.Examples) > 20 {
			return
		}
		r.Examples = append(r.Examples, what+": "+id)
	}
}

// published counts each Nats-Msg-Id on the EVENTS stream.
func published(ctx context.Context, natsURL string) (map[string]int, error) {
	nc, err := nats.Connect(natsURL)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	st, err := js.Stream(ctx, "EVENTS")
	if err != nil {
		return nil, fmt.Errorf("the EVENTS stream: %w", err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, err
	}
	total := info.State.Msgs
	out := map[string]int{}
	if total == 0 {
		return out, nil
	}
	cons, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, err
	}
	var got uint64
	empty := 0
	for got < total {
		// Ask for no more than remains: Fetch returns as soon as the batch is full.
		batch, err := cons.Fetch(int(min(500, total-got)), jetstream.FetchMaxWait(5*time.Second))
		n := 0
		if err == nil {
			for m := range batch.Messages() {
				out[m.Headers().Get(nats.MsgIdHdr)]++
				got++
				n++
			}
			err = batch.Error()
		}
		if n > 0 {
			empty = 0
			continue
		}
		// On a cluster a pull can find the ordered consumer's ephemeral
		// consumer not yet answering ("no responders"); the ordered
		// consumer then recreates itself from the next sequence, so an
		// empty batch is retried a few times before it counts as the end.
		if empty++; empty > 5 {
			return nil, fmt.Errorf("EVENTS: read %d of %d messages, then nothing (last error: %v)", got, total, err)
		}
		time.Sleep(time.Second)
	}
	return out, nil
}

// Count is the number of events in the store (the hostile run's "state
// changed" check compares it before and after).
func Count(ctx context.Context, dbURL string) (events, streams, dedup int64, err error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return 0, 0, 0, err
	}
	defer conn.Close(ctx)
	err = conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM events), (SELECT coalesce(sum(version),0) FROM streams), (SELECT count(*) FROM tombstones)`).Scan(&events, &streams, &dedup)
	return events, streams, dedup, err
}

// Settle waits until the store has gained no event for quiet, or timeout.
func Settle(ctx context.Context, dbURL string, quiet, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last, _, _, err := Count(ctx, dbURL)
	if err != nil {
		return err
	}
	since := time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		n, _, _, err := Count(ctx, dbURL)
		if err != nil {
			return err
		}
		if n != last {
			last, since = n, time.Now()
			continue
		}
		if time.Since(since) >= quiet {
			return nil
		}
	}
	return fmt.Errorf("the store was still changing after %s", timeout)
}

// Appended is the number of events ever appended: the identity's last
// value, which deletions do not lower.
func Appended(ctx context.Context, dbURL string) (int64, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, `SELECT coalesce(max(global_position), 0) FROM events`).Scan(&n)
	return n, err
}
