package sqlite_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/sqlite"
)

// openStore opens and migrates a store on a fresh file, closed at cleanup.
func openStore(t *testing.T, opts ...sqlite.Option) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "events.db"), opts...)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	require.NoError(t, s.Migrate(context.Background()))
	return s
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func ev(text string) eventstore.NewEvent {
	return eventstore.NewEvent{Payload: wrapperspb.String(text)}
}

func events(texts ...string) []eventstore.NewEvent {
	out := make([]eventstore.NewEvent, len(texts))
	for i, s := range texts {
		out[i] = ev(s)
	}
	return out
}

func texts(t *testing.T, evs []eventstore.RecordedEvent) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		sv, ok := e.Payload.(*wrapperspb.StringValue)
		require.True(t, ok, "payload %d is %T", i, e.Payload)
		out[i] = sv.GetValue()
	}
	return out
}

func create(t *testing.T, s *sqlite.Store, id eventstore.StreamID, owner string, evs ...eventstore.NewEvent) eventstore.AppendResult {
	t.Helper()
	res, err := s.Append(context.Background(), eventstore.AppendRequest{Stream: id, Expected: eventstore.NoStream(), Owner: owner, Events: evs})
	require.NoError(t, err)
	return res
}

func requireProtoEqual(t *testing.T, want, got proto.Message) {
	t.Helper()
	require.True(t, proto.Equal(want, got), "want %v, got %v", want, got)
}
