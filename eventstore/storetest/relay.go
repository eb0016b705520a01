package storetest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/roadbook/roadbook/eventstore"
)

// testRelay is the relay loop reduced to its contract: load the cursor, read
// the feed, publish each event with Nats-Msg-Id = event id, and save the
// cursor only after JetStream acknowledged the batch.
type testRelay struct {
	store  eventstore.Store
	js     jetstream.JetStream
	reader string
	limit  int
	dups   int // publishes JetStream acknowledged as duplicates
}

// step relays one batch; with crash it stops after publishing, before
// saving the cursor, like a process killed at the worst moment.
func (r *testRelay) step(ctx context.Context, limit int, crash bool) (int, error) {
	c, err := r.store.LoadCursor(ctx, r.reader)
	if err != nil {
		return 0, err
	}
	batch, next, err := r.store.ReadFeed(ctx, c, min(limit, r.limit))
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	for _, e := range batch {
		data, err := proto.Marshal(e.Payload)
		if err != nil {
			return 0, err
		}
		msg := nats.NewMsg("events." + string(e.StreamID))
		msg.Data = data
		msg.Header.Set("Roadbook-Version", strconv.FormatInt(e.Version, 10))
		ack, err := r.js.PublishMsg(ctx, msg, jetstream.WithMsgID(e.ID.String()))
		if err != nil {
			return 0, err
		}
		if ack.Duplicate {
			r.dups++
		}
	}
	if crash {
		return len(batch), nil
	}
	return len(batch), r.store.SaveCursor(ctx, r.reader, next)
}

// drain relays until n events were relayed in total.
func (r *testRelay) drain(ctx context.Context, t *testing.T, n int) {
	t.Helper()
	relayed := 0
	for relayed < n {
		wake := notify(r.store)
		k, err := r.step(ctx, n-relayed, false)
		require.NoError(t, err)
		relayed += k
		if k == 0 {
			require.NoError(t, ctx.Err(), "relay stalled at %d of %d", relayed, n)
			waitForChange(ctx, r.store, wake)
		}
	}
}

func startJetStream(t *testing.T) jetstream.JetStream {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go ns.Start()
	t.Cleanup(ns.Shutdown)
	require.True(t, ns.ReadyForConnections(10*time.Second), "embedded nats-server did not start")
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

func testRelayCrash(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	js := startJetStream(t)
	stream, err := js.CreateStream(ctx, jetstream.StreamConfig{
		Name: "EVENTS", Subjects: []string{"events.>"}, Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute,
	})
	require.NoError(t, err)

	ids := []eventstore.StreamID{newStreamID("relay-a"), newStreamID("relay-b"), newStreamID("relay-c")}
	for _, id := range ids {
		create(t, s, id, "alice", 4)
	}

	// The first relay hands on two batches, then crashes after publishing a
	// third but before saving its cursor.
	first := &testRelay{store: s, js: js, reader: "relay", limit: 5}
	first.drain(ctx, t, 10)
	var crashed int
	for crashed == 0 {
		wake := notify(s)
		crashed, err = first.step(ctx, 5, true)
		require.NoError(t, err)
		if crashed == 0 {
			waitForChange(ctx, s, wake)
		}
	}
	require.LessOrEqual(t, crashed, 2)

	// Writes go on while no relay runs.
	for _, id := range ids[:2] {
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(4), Events: events(3)})
		require.NoError(t, err)
	}

	// A new relay resumes from the saved cursor: it publishes the crashed
	// batch again (JetStream drops the copies) and then the new events.
	second := &testRelay{store: s, js: js, reader: "relay", limit: 5}
	second.drain(ctx, t, 2+6)
	require.Equal(t, crashed, second.dups, "exactly the crashed batch is published twice, and deduplicated")

	const total = 3*4 + 2*3
	info, err := stream.Info(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(total), info.State.Msgs, "one JetStream message per event")

	want := map[string]bool{}
	for _, id := range ids {
		evs, err := s.ReadStream(ctx, id, 0, 0)
		require.NoError(t, err)
		for _, e := range evs {
			want[e.ID.String()] = true
		}
	}
	require.Len(t, want, total)
	seen := map[string]bool{}
	last := map[string]int64{}
	for seq := uint64(1); seq <= info.State.LastSeq; seq++ {
		msg, err := stream.GetMsg(ctx, seq)
		require.NoError(t, err)
		id := msg.Header.Get(jetstream.MsgIDHeader)
		require.True(t, want[id], "message %d carries unknown event id %q", seq, id)
		require.False(t, seen[id], "event %s published twice", id)
		seen[id] = true
		v, err := strconv.ParseInt(msg.Header.Get("Roadbook-Version"), 10, 64)
		require.NoError(t, err)
		require.Equal(t, last[msg.Subject]+1, v, "per-stream order on %s", msg.Subject)
		last[msg.Subject] = v
	}
	require.Len(t, seen, total, "nothing lost")
}
