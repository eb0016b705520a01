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
	// Wake, when set, is the channel a tailing reader waits on after this
	// page instead of the one it took from Notify before its read. It is
	// set on a page an append read before the reader asked for it
	// (FeedPrefetcher): the reader's own channel was taken after that read,
	// so a commit that fell between them would wake nobody. Wake is closed
	// already when anything besides the append that read the page has
	// committed through the store since, else it closes at the next commit.
	Wake <-chan struct{}
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

// FeedPrefetcher is implemented by backends that can read a tailing
// reader's next feed page in the round trip of an append committed through
// them (PostgreSQL). The reader (the relay) asks for the page after its
// cursor as soon as it knows the cursor; the next append through the store
// then sends, behind its own COMMIT, the reader's feed read with that
// cursor and keeps the page, and the reader's ReadFeedPage at that cursor
// returns the kept page instead of reading (waiting a moment for it when
// the append is still under way).
//
// The page is the reader's own read, only sent by someone else and
// earlier: the same statements with the same cursor, run after the
// commit. A page read a moment before the reader takes it is still a
// correct read then, since the feed hands out only transactions that had
// ended when it was read, so whatever comes after it later can only
// follow it. What differs is the wake-up: the page carries the channel to
// wait on after it (FeedPage.Wake), and a reader that also listens to
// other processes' commits must have taken that channel before it asked
// (the relay does). What it saves is the reader's round trip after a
// commit in its own process: wake up, send the read, wait on PostgreSQL
// (docs/BENCHMARKS.md, "Eleventh session").
type FeedPrefetcher interface {
	// PrefetchFeed asks that the next append committed through this store
	// read the page after `after` (at most limit events) once it has
	// committed. There is one request at a time: a call replaces the one
	// before and drops a page read for it, kept or still being read,
	// whatever its cursor (the caller may have taken wake-up channels
	// since). One append takes the request; a reader that wants the next
	// page asks again. A limit of 0 withdraws the request.
	PrefetchFeed(after Cursor, limit int)
}
