package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
)

// waitForChange blocks until the store signals a commit (when it can) or a
// short poll interval passes, or ctx ends.
func waitForChange(ctx context.Context, s eventstore.Store, wake <-chan struct{}) {
	t := time.NewTimer(5 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-wake:
	case <-t.C:
	}
}

func notify(s eventstore.Store) <-chan struct{} {
	if n, ok := s.(eventstore.Notifier); ok {
		return n.Notify()
	}
	return nil
}

// readUntil reads the feed from c until pred holds for everything read so far
// or ctx ends; it returns what was read and the cursor after it.
func readUntil(ctx context.Context, t *testing.T, s eventstore.Store, c eventstore.Cursor, pred func([]eventstore.RecordedEvent) bool) ([]eventstore.RecordedEvent, eventstore.Cursor) {
	t.Helper()
	var all []eventstore.RecordedEvent
	for !pred(all) {
		wake := notify(s)
		batch, next, err := s.ReadFeed(ctx, c, 500)
		require.NoError(t, err)
		all, c = append(all, batch...), next
		if len(batch) == 0 {
			if ctx.Err() != nil {
				t.Fatalf("feed: gave up waiting after %d events: %v", len(all), ctx.Err())
			}
			waitForChange(ctx, s, wake)
		}
	}
	return all, c
}

func testGap(t *testing.T, h Harness) {
	if !h.ConcurrentTransactions || h.HoldAppend == nil {
		t.Skip("moot for a single-writer backend: no transaction can be open while another commits")
	}
	s := h.New(t)
	ctx := ctxFor(t)
	a, b := newStreamID("gap-a"), newStreamID("gap-b")

	// A opens (its events written, uncommitted), then B commits.
	commitA, err := h.HoldAppend(ctx, s, eventstore.AppendRequest{Stream: a, Expected: eventstore.NoStream(), Owner: "alice", Events: []eventstore.NewEvent{stringEvent("A")}})
	require.NoError(t, err)
	committed := false
	t.Cleanup(func() {
		if !committed { // a failed assertion must not leave A open: it would hold every feed back
			_ = commitA()
		}
	})
	resB, err := s.Append(ctx, eventstore.AppendRequest{Stream: b, Expected: eventstore.NoStream(), Owner: "alice", Events: []eventstore.NewEvent{stringEvent("B")}})
	require.NoError(t, err)

	// The reader runs while A is open: it must not hand out B, or its
	// cursor would pass A, which is then skipped for ever.
	early, cursor, err := s.ReadFeed(ctx, eventstore.Cursor{}, 100)
	require.NoError(t, err)
	require.Empty(t, early, "the feed must hold B back while A, which began first, is open")
	if pager, ok := s.(eventstore.FeedPager); ok {
		// B has committed: a tailing reader must learn that it waits, or it
		// sleeps until something wakes it (a poll interval when A belongs
		// to another process).
		page, err := pager.ReadFeedPage(ctx, eventstore.Cursor{}, 100)
		require.NoError(t, err)
		require.Empty(t, page.Events)
		require.Equal(t, eventstore.Cursor{}, page.Next)
		require.True(t, page.HeldBack, "B is committed and held back behind A")
	}

	committed = true
	require.NoError(t, commitA())
	got, next := readUntil(ctx, t, s, cursor, func(e []eventstore.RecordedEvent) bool { return len(e) >= 2 })
	require.Len(t, got, 2)
	require.Equal(t, a, got[0].StreamID, "A's event first (its transaction began first)")
	require.Equal(t, b, got[1].StreamID)
	require.Equal(t, resB.LastPosition, got[1].GlobalPosition)
	if pager, ok := s.(eventstore.FeedPager); ok {
		// The page agrees with ReadFeed. (Whether anything is held back
		// now depends on other tests' transactions on the same server,
		// so it is not asserted here.)
		page, err := pager.ReadFeedPage(ctx, cursor, 100)
		require.NoError(t, err)
		require.Len(t, page.Events, 2)
		require.Equal(t, got[0].ID, page.Events[0].ID)
		require.Equal(t, got[1].ID, page.Events[1].ID)
		require.Equal(t, next, page.Next)
		require.Len(t, page.Cursors, 2, "a cursor per event")
		require.Equal(t, next, page.Cursors[1], "the last event's cursor is the page's")
		require.Equal(t, got[0].GlobalPosition, page.Cursors[0].Position)
		first, err := pager.ReadFeedPage(ctx, cursor, 1)
		require.NoError(t, err)
		require.Equal(t, page.Cursors[0], first.Next, "an event's cursor is where a reader that stopped after it resumes")
	}
}

func testCursors(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	c, err := s.LoadCursor(ctx, "relay")
	require.NoError(t, err)
	require.Equal(t, eventstore.Cursor{}, c)
	create(t, s, newStreamID("cur"), "alice", 3)
	got, next := readUntil(ctx, t, s, c, func(e []eventstore.RecordedEvent) bool { return len(e) >= 3 })
	require.Len(t, got, 3)
	require.NoError(t, s.SaveCursor(ctx, "relay", next))
	loaded, err := s.LoadCursor(ctx, "relay")
	require.NoError(t, err)
	require.Equal(t, next, loaded)
	other, err := s.LoadCursor(ctx, "audit")
	require.NoError(t, err)
	require.Equal(t, eventstore.Cursor{}, other, "cursors are per reader")
	rest, _, err := s.ReadFeed(ctx, loaded, 10)
	require.NoError(t, err)
	require.Empty(t, rest)
}

// Sizes of the randomized test (ARCHITECTURE §4: ≥ 20 writers, ≥ 50 streams).
const (
	randWriters       = 20
	randStreams       = 50
	randAppendsWriter = 40
)

func testRandomized(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	streams := make([]eventstore.StreamID, randStreams)
	for i := range streams {
		streams[i] = newStreamID(fmt.Sprintf("rand%d", i))
	}

	var (
		mu        sync.Mutex
		committed = map[uuid.UUID]bool{} // appends that reported success
		refused   = map[uuid.UUID]bool{} // appends that certainly wrote nothing
		anyID     []uuid.UUID            // recorded ids, to provoke duplicate rollbacks
	)
	writersDone := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < randWriters; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for i := 0; i < randAppendsWriter; i++ {
				id := streams[rng.IntN(len(streams))]
				batch := events(1 + rng.IntN(3))
				for j := range batch {
					batch[j].ID = uuid.New()
				}
				req := eventstore.AppendRequest{Stream: id, Expected: eventstore.Any(), Owner: "alice", Events: batch}
				actx, cancel := context.WithCancel(ctx)
				mode := rng.IntN(10)
				certainFailure := false
				switch mode {
				case 0: // cancelled before it starts: certainly nothing written
					cancel()
					certainFailure = true
				case 1: // a recorded id last in the batch: rolls back in the database
					mu.Lock()
					if len(anyID) > 0 {
						batch[len(batch)-1].ID = anyID[rng.IntN(len(anyID))]
						certainFailure = true
					}
					mu.Unlock()
				case 2: // cancelled while in flight: outcome unknown to the writer
					// The delay is drawn here: rng belongs to this writer goroutine.
					delay := time.Duration(rng.IntN(500)) * time.Microsecond
					go func() { time.Sleep(delay); cancel() }()
				}
				_, err := s.Append(actx, req)
				cancel()
				mu.Lock()
				switch {
				case err == nil:
					if mode == 0 {
						t.Errorf("an append cancelled before it started succeeded")
					}
					for _, e := range batch {
						committed[e.ID] = true
						anyID = append(anyID, e.ID)
					}
				case certainFailure:
					if want := map[bool]error{true: eventstore.ErrDuplicateEvent, false: context.Canceled}[mode == 1]; !errors.Is(err, want) {
						t.Errorf("append (mode %d): want %v, got %v", mode, want, err)
					}
					for _, e := range batch[:len(batch)-1] {
						refused[e.ID] = true
					}
					if mode == 0 {
						refused[batch[len(batch)-1].ID] = true
					}
				case !errors.Is(err, context.Canceled):
					t.Errorf("append cancelled in flight: want success or context.Canceled, got %v", err)
				}
				mu.Unlock()
			}
		}()
	}
	go func() { wg.Wait(); close(writersDone) }()

	// The tailing reader runs alongside the writers.
	var (
		delivered = map[uuid.UUID]int{}
		order     []eventstore.RecordedEvent
		cursor    eventstore.Cursor
		done      bool
		total     = -1
	)
	for {
		wake := notify(s)
		batch, next, err := s.ReadFeed(ctx, cursor, 200)
		require.NoError(t, err)
		cursor = next
		for _, e := range batch {
			delivered[e.ID]++
			order = append(order, e)
		}
		if !done {
			select {
			case <-writersDone:
				done = true
				total = 0
				for _, id := range streams {
					evs, err := s.ReadStream(ctx, id, 0, 0)
					if errors.Is(err, eventstore.ErrNotFound) {
						continue
					}
					require.NoError(t, err)
					total += len(evs)
				}
			default:
			}
		}
		if done && len(order) >= total {
			break
		}
		if len(batch) == 0 {
			require.NoError(t, ctx.Err(), "feed stalled at %d of %d events", len(order), total)
			waitForChange(ctx, s, wake)
		}
	}
	extra, _, err := s.ReadFeed(ctx, cursor, 10)
	require.NoError(t, err)
	require.Empty(t, extra, "nothing beyond the table")

	// Exactly once, per-stream order, and the same events as the table.
	last := map[eventstore.StreamID]int64{}
	for _, e := range order {
		require.Equal(t, 1, delivered[e.ID], "event %s delivered %d times", e.ID, delivered[e.ID])
		require.Equal(t, last[e.StreamID]+1, e.Version, "stream %s out of order", e.StreamID)
		last[e.StreamID] = e.Version
	}
	require.Len(t, order, total)
	inTable := 0
	for _, id := range streams {
		evs, err := s.ReadStream(ctx, id, 0, 0)
		if errors.Is(err, eventstore.ErrNotFound) {
			continue
		}
		require.NoError(t, err)
		for i, e := range evs {
			require.Equal(t, int64(i+1), e.Version)
			require.Equal(t, 1, delivered[e.ID], "table event %s not delivered once", e.ID)
		}
		inTable += len(evs)
	}
	require.Equal(t, total, inTable)
	for id := range committed {
		require.Equal(t, 1, delivered[id], "committed event %s", id)
	}
	for id := range refused {
		require.Zero(t, delivered[id], "refused event %s was delivered", id)
	}
	require.NotEmpty(t, committed)
	t.Logf("%d events delivered; %d from reported successes, %d certainly refused", len(order), len(committed), len(refused))
}
