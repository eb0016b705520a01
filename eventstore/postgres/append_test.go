package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/pgtest"
	"github.com/roadbook/roadbook/eventstore/postgres"
)

// Exact appends take no lock (see append.go): this test races them against
// StreamExists and Any appends on the same few streams, and checks that the
// feed still hands every stream's events over exactly once and in version
// order, and that the stream rows agree with the events.
func TestMixedExpectedVersionKindsKeepPerStreamFeedOrder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := postgres.New(pgtest.Schema(t))
	const (
		streams = 3
		writers = 12
		appends = 40
	)
	ids := make([]eventstore.StreamID, streams)
	for i := range ids {
		ids[i] = eventstore.StreamID(fmt.Sprintf("mixed-%d", i))
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: ids[i], Expected: eventstore.NoStream(), Owner: "alice",
			Events: []eventstore.NewEvent{{Payload: wrapperspb.String("created")}}})
		require.NoError(t, err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			known := int64(1) // every stream starts at version 1
			for i := range appends {
				id := ids[(w+i)%streams]
				ev := []eventstore.NewEvent{{Payload: wrapperspb.String(fmt.Sprintf("w%d-%d", w, i))}}
				var err error
				switch (w + i) % 3 {
				case 0:
					_, err = s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.StreamExists(), Events: ev})
				case 1:
					_, err = s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Any(), Owner: "alice", Events: ev})
				default:
					// Exact, retried with the current version a conflict reports.
					for {
						_, err = s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(known), Events: ev})
						var vc *eventstore.VersionConflictError
						if !errors.As(err, &vc) {
							break
						}
						known = vc.Current
					}
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	require.Empty(t, errs)

	total := streams + writers*appends
	var got []eventstore.RecordedEvent
	cursor := eventstore.Cursor{}
	for len(got) < total {
		page, next, err := s.ReadFeed(ctx, cursor, 500)
		require.NoError(t, err)
		got, cursor = append(got, page...), next
		if len(page) == 0 {
			// The feed waits for the cluster's oldest transaction (xid8
			// horizon); other tests may hold one briefly.
			select {
			case <-ctx.Done():
				require.FailNow(t, "feed stalled", "got %d of %d events", len(got), total)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	require.Len(t, got, total, "every committed event exactly once")
	last := map[eventstore.StreamID]int64{}
	for _, e := range got {
		require.Equal(t, last[e.StreamID]+1, e.Version, "stream %s: versions in feed order", e.StreamID)
		last[e.StreamID] = e.Version
	}
	for _, id := range ids {
		res, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(last[id]),
			Events: []eventstore.NewEvent{{Payload: wrapperspb.String("final")}}})
		require.NoError(t, err, "the stream row's version matches its last event")
		require.Equal(t, last[id]+1, res.Version)
	}
}

// A refused Exact append reports why, read after the refusal: a deleted
// stream, another owner, or the current version.
func TestExactRefusalsNameTheirCause(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := postgres.New(pgtest.Schema(t))
	ev := []eventstore.NewEvent{{Payload: wrapperspb.String("x")}}
	_, err := s.Append(ctx, eventstore.AppendRequest{Stream: "r-1", Expected: eventstore.NoStream(), Owner: "alice", Events: ev})
	require.NoError(t, err)

	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "r-1", Expected: eventstore.Exact(1), Owner: "bob", Events: ev})
	require.ErrorIs(t, err, eventstore.ErrOwnerMismatch)
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "r-1", Expected: eventstore.Exact(3), Events: ev})
	var vc *eventstore.VersionConflictError
	require.ErrorAs(t, err, &vc)
	require.Equal(t, int64(1), vc.Current)
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "r-missing", Expected: eventstore.Exact(1), Events: ev})
	require.ErrorAs(t, err, &vc)
	require.Equal(t, int64(0), vc.Current)

	require.NoError(t, s.DeleteStream(ctx, "r-1"))
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "r-1", Expected: eventstore.Exact(1), Events: ev})
	require.ErrorIs(t, err, eventstore.ErrStreamDeleted)
}
