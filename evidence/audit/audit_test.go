package audit_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore/postgres"
	"github.com/roadbook/roadbook/evidence/audit"
	"github.com/roadbook/roadbook/testkit"
)

// world is a migrated store schema and a JetStream with the EVENTS stream,
// into which each case writes exactly the rows and messages it needs.
type world struct {
	db   *pgx.Conn
	url  string
	nats string
	js   jetstream.JetStream
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	url := testkit.SchemaURL(t)
	store, err := postgres.Open(ctx, url)
	require.NoError(t, err)
	require.NoError(t, store.Migrate(ctx))
	store.Close()
	db, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close(ctx) })
	ns, nc := testkit.NATS(t)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	// A short duplicate window, so a case can publish one id twice.
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}, Duplicates: 100 * time.Millisecond})
	require.NoError(t, err)
	return &world{db: db, url: url, nats: ns.URL(), js: js}
}

// event stores one event (and the stream head) and returns its id.
func (w *world) event(t *testing.T, stream string, version int64, typ, causation string) string {
	t.Helper()
	ctx := context.Background()
	id := uuid.NewString()
	meta := `{}`
	if causation != "" {
		meta = `{"causationId":"` + causation + `"}`
	}
	_, err := w.db.Exec(ctx, `INSERT INTO events (event_id, stream_id, version, type, data, metadata) VALUES ($1, $2, $3, $4, '{}', $5)`,
		id, stream, version, "roadbook.events.v1."+typ, meta)
	require.NoError(t, err)
	_, err = w.db.Exec(ctx, `INSERT INTO streams (stream_id, version, owner) VALUES ($1, $2, 'u')
		ON CONFLICT (stream_id) DO UPDATE SET version = greatest(streams.version, excluded.version)`, stream, version)
	require.NoError(t, err)
	return id
}

func (w *world) publish(t *testing.T, id string) {
	t.Helper()
	msg := nats.NewMsg("events.trip.x.T")
	msg.Header.Set(nats.MsgIdHdr, id)
	_, err := w.js.PublishMsg(context.Background(), msg)
	require.NoError(t, err)
}

// consistent writes a trip whose one stages request finished once, all published.
func (w *world) consistent(t *testing.T, stream string) {
	t.Helper()
	req := w.event(t, stream, 1, "RouteImported", "")
	done := w.event(t, stream, 2, "StagesComputed", req)
	w.publish(t, req)
	w.publish(t, done)
}

func TestRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a consistent store passes", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.consistent(t, "trip-a")
		r, err := audit.Run(ctx, w.url, w.nats, audit.Ledger{Acked: map[string]int64{"a": 2}})
		require.NoError(t, err)
		require.True(t, r.OK(), "%+v", r)
		require.Equal(t, int64(1), r.Requests)
		require.Equal(t, int64(2), r.Published)
	})
	t.Run("a version gap is found", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.consistent(t, "trip-a")
		w.publish(t, w.event(t, "trip-a", 4, "TripShared", ""))
		r, err := audit.Run(ctx, w.url, w.nats, audit.Ledger{})
		require.NoError(t, err)
		require.Equal(t, int64(1), r.GapStreams)
		require.False(t, r.OK())
	})
	t.Run("an event never published is lost", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.consistent(t, "trip-a")
		w.event(t, "trip-a", 3, "TripShared", "")
		r, err := audit.Run(ctx, w.url, w.nats, audit.Ledger{})
		require.NoError(t, err)
		require.Equal(t, int64(1), r.Lost)
	})
	t.Run("an event published twice is doubled", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.consistent(t, "trip-a")
		id := w.event(t, "trip-a", 3, "TripShared", "")
		w.publish(t, id)
		time.Sleep(300 * time.Millisecond) // past the duplicate window
		w.publish(t, id)
		r, err := audit.Run(ctx, w.url, w.nats, audit.Ledger{})
		require.NoError(t, err)
		require.Equal(t, int64(1), r.Doubled)
	})
	t.Run("a request without a terminal event, and one with two, are found", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		req := w.event(t, "trip-a", 1, "AnalysisRequested", "")
		w.publish(t, req)
		req2 := w.event(t, "trip-b", 1, "RouteImported", "")
		w.publish(t, req2)
		w.publish(t, w.event(t, "trip-b", 2, "StagesComputed", req2))
		w.publish(t, w.event(t, "trip-b", 3, "StagesFailed", req2))
		r, err := audit.Run(ctx, w.url, w.nats, audit.Ledger{})
		require.NoError(t, err)
		require.Equal(t, int64(1), r.ZeroTerminal)
		require.Equal(t, int64(1), r.ManyTerminal)
	})
	t.Run("an acknowledged write missing from the store is found", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.consistent(t, "trip-a")
		r, err := audit.Run(ctx, w.url, w.nats, audit.Ledger{Acked: map[string]int64{"a": 5}})
		require.NoError(t, err)
		require.Equal(t, int64(1), r.AckedMissing)
	})
}

func TestRunDeleteAnswerLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t)
	// A tombstone and no events: the delete happened.
	_, err := w.db.Exec(ctx, `INSERT INTO tombstones (stream_id, owner) VALUES ('trip-gone', 'u')`)
	require.NoError(t, err)

	t.Run("a delete that was sent and done is not a lost write", func(t *testing.T) {
		t.Parallel()
		r, err := audit.Run(ctx, w.url, w.nats, audit.Ledger{Acked: map[string]int64{"gone": 2}, DeleteSent: map[string]bool{"gone": true}})
		require.NoError(t, err)
		require.Zero(t, r.AckedMissing)
	})
	t.Run("without a delete sent, the missing events are a lost write", func(t *testing.T) {
		t.Parallel()
		r, err := audit.Run(ctx, w.url, w.nats, audit.Ledger{Acked: map[string]int64{"gone": 2}})
		require.NoError(t, err)
		require.Equal(t, int64(1), r.AckedMissing)
	})
}
