package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/eventstore"
)

var _ eventstore.FeedPrefetcher = (*Store)(nil)

// feedRequest is a feed read asked for in advance: the cursor and limit of
// the reader's next ReadFeedPage.
type feedRequest struct {
	after eventstore.Cursor
	limit int
}

// prefetch holds the reader's standing request, the request an append has
// taken and is reading (in flight), and the page it read. The zero value
// holds none of them.
type prefetch struct {
	mu sync.Mutex
	// asks counts PrefetchFeed's calls; flyingAsk is the count when the
	// request in flight was asked for.
	asks, flyingAsk uint64
	want            *feedRequest
	flying          *feedRequest
	// landed is closed when the request in flight lands: its page kept,
	// or the request given back.
	landed chan struct{}
	kept   *keptPage
	// wait replaces prefetchWait when set (tests).
	wait time.Duration
}

// keptPage is a page read for a request, waiting for the reader's
// ReadFeedPage at the same cursor and limit.
type keptPage struct {
	req  feedRequest
	page eventstore.FeedPage
}

// prefetchWait bounds how long ReadFeedPage waits for a page in flight for
// its cursor before it reads on its own. The append reading it is one round
// trip from done unless it queues on its stream's lock behind another
// writer, and the reader should not queue behind it then.
const prefetchWait = 5 * time.Millisecond

// PrefetchFeed implements eventstore.FeedPrefetcher.
func (s *Store) PrefetchFeed(after eventstore.Cursor, limit int) {
	p := &s.prefetch
	p.mu.Lock()
	defer p.mu.Unlock()
	// A page kept or in flight was asked for before this call, and the
	// reader may have taken its other wake-ups since (FeedPage.Wake): it
	// is dropped, whatever its cursor.
	p.asks++
	p.want, p.kept = nil, nil
	if limit > 0 && limit <= MaxFeedLimit {
		p.want = &feedRequest{after: after, limit: limit}
	}
}

// take hands the standing request to one append, which must land it, or
// returns nil when there is none or one is in flight already.
func (p *prefetch) take() *feedRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.want
	if w == nil || p.flying != nil {
		return nil
	}
	p.want, p.flying, p.flyingAsk, p.landed = nil, w, p.asks, make(chan struct{})
	return w
}

// land ends the flight of w. Unless the reader has asked again (or
// withdrawn) since it asked for w, the page is kept, or, without a page
// (the append failed, or its read did), the request stands again.
func (p *prefetch) land(w *feedRequest, page *eventstore.FeedPage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flying = nil
	close(p.landed)
	switch {
	case p.asks != p.flyingAsk:
	case page == nil:
		p.want = w
	default:
		p.kept = &keptPage{req: *w, page: *page}
	}
}

// use returns, once, the page kept for a read after `after` of limit,
// waiting up to prefetchWait for one in flight.
func (p *prefetch) use(ctx context.Context, after eventstore.Cursor, limit int) (eventstore.FeedPage, bool) {
	req := feedRequest{after: after, limit: limit}
	p.mu.Lock()
	if p.flying != nil && *p.flying == req {
		landed := p.landed
		p.mu.Unlock()
		wait := prefetchWait
		if p.wait > 0 {
			wait = p.wait
		}
		t := time.NewTimer(wait)
		select {
		case <-landed:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		p.mu.Lock()
	}
	defer p.mu.Unlock()
	k := p.kept
	if k == nil || k.req != req {
		return eventstore.FeedPage{}, false
	}
	p.kept = nil
	return k.page, true
}

// appendPrefetching is Append carrying the feed reader's request w: BEGIN,
// the stream's lock, the append and COMMIT, then the reader's two feed
// statements (queueFeedPage), all in one batch on one connection, so the
// page is read after the commit without a round trip of its own. The
// explicit transaction is what lets statements follow the commit in one
// batch: an implicit one would end at the batch's end, with them inside.
//
// A keyed append (appendIdempotent) leaves the request to the next unkeyed
// one: keys come with the API's writes, and the relay runs in the workers,
// whose appends carry derived event ids instead.
//
// The readers are woken before the page lands; one that asks for it in
// between waits for it (prefetch.use). The page's Wake is taken from the
// signal count read before the batch was sent: a signal other than this
// append's own since then may announce a commit the page did not see.
func (s *Store) appendPrefetching(ctx context.Context, req eventstore.AppendRequest, events []eventstore.EncodedEvent, w *feedRequest) (eventstore.AppendResult, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		s.prefetch.land(w, nil)
		return eventstore.AppendResult{}, translate("append", err)
	}
	// A connection left inside the transaction (an error below) is closed
	// by the pool on release, never reused mid-transaction.
	defer c.Release()
	query, args := appendStatement(req, events, s.now())
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(lockStreamSQL, string(req.Stream))
	b.Queue(query, args...)
	b.Queue("COMMIT")
	queueFeedPage(b, w.after, w.limit)
	gen := s.wake.Generation()
	br := c.SendBatch(ctx, b)
	version, first, last, err := readAppended(br, 2, 1) // BEGIN and the lock; COMMIT
	if err != nil {
		_ = br.Close()
		_, _ = c.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		s.prefetch.land(w, nil)
		return eventstore.AppendResult{}, translate("append", err)
	}
	// Committed (or refused, writing nothing): whatever the page's read
	// does now, the append stands. A page that cannot be read leaves the
	// request to the next append and the read to the reader.
	page, perr := readFeedPage(br, w.after)
	if cerr := br.Close(); perr == nil {
		perr = cerr
	}
	refused := version == nil || first == nil || last == nil
	if !refused {
		s.signal()
		gen++
	}
	if perr != nil {
		s.prefetch.land(w, nil)
	} else {
		page.Wake = s.wake.NotifySince(gen)
		s.prefetch.land(w, &page)
	}
	if refused {
		return eventstore.AppendResult{}, refusal(ctx, s.pool, req)
	}
	return eventstore.AppendResult{Version: *version, FirstPosition: *first, LastPosition: *last}, nil
}
