package relay

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/services/worker/internal/stream"
)

// HeaderFeedTx carries the transaction id half of the event's feed cursor
// (eventstore.Cursor; HeaderPosition is the other half) on its EVENTS
// message, so a relay taking over can tell from the last message EVENTS
// stored which events it need not hand on again.
const HeaderFeedTx = "Roadbook-Feed-Tx"

// eventsHead is where the EVENTS stream stands: the sequence of its last
// message and, when that message says so (HeaderFeedTx, HeaderPosition),
// the feed cursor of the event it carries.
//
// EVENTS does not lean on JetStream's dedup window for what a relay hands
// on again. The relay publishes every EVENTS message expecting the
// stream's last sequence to be the one before it
// (jetstream.WithExpectLastSequence), and every relay numbers the feed's
// trip events the same way from a head it read, so the stream is always a
// prefix of them: a message that fails makes every later one of the batch
// fail too (no gap), and nothing can be stored twice; an old lease
// holder's message landing late is the same message at the same sequence.
// That needs the relay to be EVENTS' only publisher, which it is (a
// message from elsewhere would shift the numbering by one). The previous
// message's id (jetstream.WithExpectLastMsgID) would not need that, but
// nats-server checks it on every replica as it applies a message, against
// the replica's own memory of the last id, and a follower restarted in
// the clustered chaos run (make chaos-cluster) disagreed with its leader,
// failed to apply and left the stream stuck; the expected sequence is
// checked once, by the leader, before the message is proposed. A relay
// that takes the lease, or retries a batch after a failure, reads the head
// first and hands on only the EVENTS messages of events after its cursor;
// the JOBS messages of the events it republishes are dropped by JOBS'
// dedup window, as before. So the copies a crash or a lost ack leave
// behind never reach EVENTS, however long the fault lasted, and EVENTS'
// dedup window carries no guarantee (stream.DefaultEventsDuplicates).
type eventsHead struct {
	// seq is the stream's last sequence (0: empty); the next EVENTS
	// message must expect it.
	seq uint64
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
	tx, terr := strconv.ParseUint(m.Header.Get(HeaderFeedTx), 10, 64)
	pos, perr := strconv.ParseInt(m.Header.Get(HeaderPosition), 10, 64)
	if terr == nil && perr == nil {
		h.cursor, h.valid = eventstore.Cursor{TxID: tx, Position: pos}, true
	}
	return h, nil
}
