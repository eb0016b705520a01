package eventstore

import "context"

// FeedPage is one read of the feed, with what a tailing reader needs to
// decide when to read again.
type FeedPage struct {
	// Events are the committed events after the cursor read from, in feed
	// order; Next is the cursor after the last of them.
	Events []RecordedEvent
	Next   Cursor
	// Cursors[i] is the feed position of Events[i]: the cursor a reader
	// that handed on Events[:i+1] resumes from (the last equals Next). A
	// relay marks what it published with it, so that the next relay can
	// tell, from the last message JetStream stored, which events it need
	// not hand on again.
	Cursors []Cursor
	// HeldBack is true when events that have committed are not handed out
	// yet because a transaction that began writing before them is still
	// running: PostgreSQL's feed only hands out transactions older than
	// every transaction still running, so that none can commit behind the
	// cursor (package postgres, ReadFeed). They become readable the moment
	// that transaction ends, usually within a millisecond, and nothing may
	// come to wake the reader then (the blocking transaction may be another
	// process's, or not an append at all), so a tailing reader should read
	// again soon instead of waiting for a wake-up or its poll interval.
	HeldBack bool
	// Owners is the owner of each stream whose first event (version 1) is
	// in the page, where the backend reads it with the page (PostgreSQL;
	// nil elsewhere). A reader that folds what it reads can then begin a
	// new stream's state as a load would, owner included, without a read
	// of its own: the relay hands its worker's state cache what it
	// publishes (aggregate.Observe), so the job that a create sets off
	// finds the trip folded.
	Owners map[StreamID]string
}

// FeedPager is implemented by backends whose feed can hold committed events
// back (PostgreSQL). ReadFeedPage is ReadFeed that also says whether it did;
// a backend without it (one writer at a time: the embedded store) never
// holds anything back. Its events come undecoded: Data set, Payload nil
// (RecordedEvent.Data); the reader decodes what it needs with
// DecodePayload.
type FeedPager interface {
	ReadFeedPage(ctx context.Context, after Cursor, limit int) (FeedPage, error)
}
