package sqlite_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/sqlite"
)

func TestAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("events round-trip with payload, metadata, ids and positions", func(t *testing.T) {
		t.Parallel()
		c := newClock()
		s := openStore(t, sqlite.WithClock(c.Now))
		id := uuid.New()
		payload, err := structpb.NewStruct(map[string]any{"km": 42.5, "name": "Col"})
		require.NoError(t, err)
		md := eventstore.Metadata{CausationID: "c1", CorrelationID: "k1", Actor: "u1", Trace: map[string]string{"traceparent": "00-x"}}
		res, err := s.Append(ctx, eventstore.AppendRequest{
			Stream: "trip-1", Expected: eventstore.NoStream(), Owner: "alice",
			Events: []eventstore.NewEvent{{ID: id, Payload: payload, Metadata: md}, ev("second")},
		})
		require.NoError(t, err)
		require.Equal(t, int64(2), res.Version)
		require.Equal(t, res.FirstPosition+1, res.LastPosition)

		got, err := s.ReadStream(ctx, "trip-1", 0, 0)
		require.NoError(t, err)
		require.Len(t, got, 2)
		require.Equal(t, id, got[0].ID)
		require.Equal(t, "google.protobuf.Struct", got[0].Type)
		requireProtoEqual(t, payload, got[0].Payload)
		require.Equal(t, md, got[0].Metadata)
		require.Equal(t, eventstore.StreamID("trip-1"), got[0].StreamID)
		require.Equal(t, []int64{1, 2}, []int64{got[0].Version, got[1].Version})
		require.Equal(t, []int64{res.FirstPosition, res.LastPosition}, []int64{got[0].GlobalPosition, got[1].GlobalPosition})
		require.NotEqual(t, uuid.Nil, got[1].ID, "a zero id is replaced by a generated one")
		require.True(t, c.Now().Equal(got[0].RecordedAt))

		tail, err := s.ReadStream(ctx, "trip-1", 1, 1)
		require.NoError(t, err)
		require.Equal(t, []string{"second"}, texts(t, tail))
	})

	t.Run("every expected-version kind is honoured and a conflict carries the current version", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		app := func(id eventstore.StreamID, e eventstore.ExpectedVersion, owner string) (eventstore.AppendResult, error) {
			return s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: e, Owner: owner, Events: events("x")})
		}
		requireConflict := func(err error, current int64) {
			t.Helper()
			var vc *eventstore.VersionConflictError
			require.ErrorAs(t, err, &vc)
			require.ErrorIs(t, err, eventstore.ErrVersionConflict)
			require.Equal(t, current, vc.Current)
		}
		_, err := app("s", eventstore.Exact(1), "")
		requireConflict(err, 0)
		_, err = app("s", eventstore.StreamExists(), "")
		requireConflict(err, 0)
		res, err := app("s", eventstore.NoStream(), "o")
		require.NoError(t, err)
		require.Equal(t, int64(1), res.Version)
		_, err = app("s", eventstore.NoStream(), "o")
		requireConflict(err, 1)
		res, err = app("s", eventstore.Exact(1), "")
		require.NoError(t, err)
		require.Equal(t, int64(2), res.Version)
		_, err = app("s", eventstore.Exact(1), "")
		requireConflict(err, 2)
		res, err = app("s", eventstore.StreamExists(), "o")
		require.NoError(t, err)
		require.Equal(t, int64(3), res.Version)
		res, err = app("s", eventstore.Any(), "o")
		require.NoError(t, err)
		require.Equal(t, int64(4), res.Version)
		res, err = app("fresh", eventstore.Any(), "o")
		require.NoError(t, err)
		require.Equal(t, int64(1), res.Version, "Any creates a missing stream")
	})

	t.Run("a duplicate event id is refused and nothing of that append is written", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		id := uuid.New()
		create(t, s, "a", "o", eventstore.NewEvent{ID: id, Payload: wrapperspb.String("first")})
		_, err := s.Append(ctx, eventstore.AppendRequest{
			Stream: "a", Expected: eventstore.Exact(1),
			Events: []eventstore.NewEvent{ev("new"), {ID: id, Payload: wrapperspb.String("again")}},
		})
		require.ErrorIs(t, err, eventstore.ErrDuplicateEvent)
		_, err = s.Append(ctx, eventstore.AppendRequest{
			Stream: "b", Expected: eventstore.NoStream(), Owner: "o",
			Events: []eventstore.NewEvent{{ID: id, Payload: wrapperspb.String("elsewhere")}},
		})
		require.ErrorIs(t, err, eventstore.ErrDuplicateEvent)

		info, err := s.Stream(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, int64(1), info.Version)
		_, err = s.Stream(ctx, "b")
		require.ErrorIs(t, err, eventstore.ErrNotFound, "the refused append must not create its stream")
		feed, _, err := s.ReadFeed(ctx, eventstore.Cursor{}, 100)
		require.NoError(t, err)
		require.Equal(t, []string{"first"}, texts(t, feed))
	})

	t.Run("an owner other than the stream's is refused", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		create(t, s, "a", "alice", ev("x"))
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: "a", Expected: eventstore.Exact(1), Owner: "bob", Events: events("y")})
		require.ErrorIs(t, err, eventstore.ErrOwnerMismatch)
		_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "a", Expected: eventstore.Any(), Owner: "bob", Events: events("y")})
		require.ErrorIs(t, err, eventstore.ErrOwnerMismatch)
		info, err := s.Stream(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, int64(1), info.Version)
		require.Equal(t, "alice", info.Owner)
	})

	t.Run("bad requests are refused naming the field and write nothing", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		big := strings.Repeat("x", eventstore.MaxPayloadBytes)
		many := make([]eventstore.NewEvent, eventstore.MaxEventsPerAppend+1)
		for i := range many {
			many[i] = ev("e")
		}
		dup := uuid.New()
		cases := []struct {
			name  string
			req   eventstore.AppendRequest
			field string
		}{
			{"bad stream id", eventstore.AppendRequest{Stream: "trip/1", Expected: eventstore.NoStream(), Owner: "o", Events: events("x")}, "stream id"},
			{"no expectation", eventstore.AppendRequest{Stream: "s", Owner: "o", Events: events("x")}, "expected version"},
			{"no events", eventstore.AppendRequest{Stream: "s", Expected: eventstore.NoStream(), Owner: "o"}, "events"},
			{"too many events", eventstore.AppendRequest{Stream: "s", Expected: eventstore.NoStream(), Owner: "o", Events: many}, "events"},
			{"payload too big", eventstore.AppendRequest{Stream: "s", Expected: eventstore.NoStream(), Owner: "o", Events: []eventstore.NewEvent{ev("ok"), ev(big)}}, "events[1] payload"},
			{"nil payload", eventstore.AppendRequest{Stream: "s", Expected: eventstore.NoStream(), Owner: "o", Events: []eventstore.NewEvent{{}}}, "events[0] payload"},
			{"summary not JSON", eventstore.AppendRequest{Stream: "s", Expected: eventstore.NoStream(), Owner: "o", Events: events("x"), Summary: &eventstore.Summary{Data: []byte(`{"a":`)}}, "summary data"},
			{"no owner on create", eventstore.AppendRequest{Stream: "s", Expected: eventstore.NoStream(), Events: events("x")}, "owner"},
			{"repeated id", eventstore.AppendRequest{Stream: "s", Expected: eventstore.NoStream(), Owner: "o", Events: []eventstore.NewEvent{{ID: dup, Payload: wrapperspb.String("a")}, {ID: dup, Payload: wrapperspb.String("b")}}}, "events[1] id"},
		}
		for _, tc := range cases {
			_, err := s.Append(ctx, tc.req)
			var ie *eventstore.InvalidError
			require.ErrorAs(t, err, &ie, tc.name)
			require.Equal(t, tc.field, ie.Field, tc.name)
			require.ErrorIs(t, err, eventstore.ErrInvalid, tc.name)
		}
		feed, _, err := s.ReadFeed(ctx, eventstore.Cursor{}, 100)
		require.NoError(t, err)
		require.Empty(t, feed)
	})
}

// TestSingleWriter pins the point of the design: writers queue inside the
// store, so concurrency shows up as version conflicts, never as SQLITE_BUSY.
func TestSingleWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("50 concurrent appenders on one stream see only success or a version conflict", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		create(t, s, "hot", "o", ev("start"))
		const racers, rounds = 50, 4
		var (
			wg                  sync.WaitGroup
			mu                  sync.Mutex
			successes, conflict int
			other               []error
		)
		for range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					info, err := s.Stream(ctx, "hot")
					if err == nil {
						_, err = s.Append(ctx, eventstore.AppendRequest{Stream: "hot", Expected: eventstore.Exact(info.Version), Events: events("r")})
					}
					mu.Lock()
					switch {
					case err == nil:
						successes++
					case errors.Is(err, eventstore.ErrVersionConflict):
						conflict++
					default:
						other = append(other, err)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		require.Empty(t, other, "no error other than a version conflict (in particular no SQLITE_BUSY)")
		require.Equal(t, racers*rounds, successes+conflict)
		require.Positive(t, successes)
		info, err := s.Stream(ctx, "hot")
		require.NoError(t, err)
		require.Equal(t, int64(1+successes), info.Version, "every success, and only those, moved the version")
		all, err := s.ReadStream(ctx, "hot", 0, 0)
		require.NoError(t, err)
		require.Len(t, all, 1+successes)
	})

	t.Run("50 racers at one version: exactly one wins, every round", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		create(t, s, "race", "o", ev("start"))
		for round := range 10 {
			at := int64(round + 1)
			var wg sync.WaitGroup
			errs := make([]error, 50)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = s.Append(ctx, eventstore.AppendRequest{Stream: "race", Expected: eventstore.Exact(at), Events: events("r")})
				}()
			}
			wg.Wait()
			wins := 0
			for _, err := range errs {
				if err == nil {
					wins++
					continue
				}
				var vc *eventstore.VersionConflictError
				require.ErrorAs(t, err, &vc)
				require.Equal(t, at+1, vc.Current)
			}
			require.Equal(t, 1, wins, "round %d", round)
		}
	})
}
