package relay

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
)

// HeaderFeedTx carries the transaction id half of the event's feed cursor
// (eventstore.Cursor; HeaderPosition is the other half) on its EVENTS
// message, so a relay taking over can tell from the last message EVENTS
// stored which events it need not hand on again.
const HeaderFeedTx = "Roadbook-Feed-Tx"

// eventsHead is where the EVENTS stream stands: the sequence and message
// id of its last message and, when that message says so (HeaderFeedTx,
// HeaderPosition), the feed cursor of the event it carries.
//
// EVENTS does not lean on JetStream's dedup window for what a relay hands
// on again. The relay publishes every EVENTS message expecting the
// stream's last message to be the one it published before it: its
// sequence (jetstream.WithExpectLastSequence) and its id, the previous
// event's (jetstream.WithExpectLastMsgID). So the stream is always a
// prefix of the feed's trip events: a message that fails makes every
// later one of the batch fail too (no gap), and nothing can be stored
// twice. The id makes the chain hold even if something else published on
// EVENTS: by sequence alone, a foreign message would let the message
// after a refused one through, one place later, and the refused one would
// then be taken as stored (TestRelayEventsHead). A relay
// that takes the lease, or retries a batch after a failure, reads the head
// first and hands on only the EVENTS messages of events after its cursor;
// the JOBS messages of the events it republishes are dropped by JOBS'
// dedup window, as before. So the copies a crash or a lost ack leave
// behind never reach EVENTS, however long the fault lasted, and EVENTS'
// dedup window carries no guarantee (stream.DefaultEventsDuplicates).
type eventsHead struct {
	// seq is the stream's last sequence (0: empty) and id its last
	// message's Nats-Msg-Id ("": none); the next EVENTS message must
	// expect both.
	seq uint64
	id  string
	// cursor is the feed cursor of the event in the message at seq;
	// valid is false when no such message can be read (the stream is
	// empty, its last message aged out, or it was published without the
	// headers by an older relay): then nothing is skipped.
	cursor eventstore.Cursor
	valid  bool
}

// covers reports whether the event at feed cursor c is already in EVENTS.
func (h eventsHead) covers(c eventstore.Cursor) bool {
	return h.valid && !after(c, h.cursor)
}

// after reports whether a comes after b in feed order (transaction id,
// then global position).
func after(a, b eventstore.Cursor) bool {
	if a.TxID != b.TxID {
		return a.TxID > b.TxID
	}
	return a.Position > b.Position
}

// readEventsHead asks JetStream where EVENTS stands: one stream info
// request and one direct read of its last message.
func (r *Relay) readEventsHead(ctx context.Context) (eventsHead, error) {
	s, err := r.cfg.JS.Stream(ctx, stream.Events)
	if err != nil {
		return eventsHead{}, fmt.Errorf("read the head of %s: %w", stream.Events, err)
	}
	h := eventsHead{seq: s.CachedInfo().State.LastSeq}
	if h.seq == 0 {
		return h, nil
	}
	m, err := s.GetMsg(ctx, h.seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return h, nil // aged out or deleted: nothing after it was stored
	}
	if err != nil {
		return eventsHead{}, fmt.Errorf("read the last message of %s: %w", stream.Events, err)
	}
	h.id = m.Header.Get(nats.MsgIdHdr)
	tx, terr := strconv.ParseUint(m.Header.Get(HeaderFeedTx), 10, 64)
	pos, perr := strconv.ParseInt(m.Header.Get(HeaderPosition), 10, 64)
	if terr == nil && perr == nil {
		h.cursor, h.valid = eventstore.Cursor{TxID: tx, Position: pos}, true
	}
	return h, nil
}
