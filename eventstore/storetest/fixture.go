package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
)

var streamSeq atomic.Int64

// newStreamID returns a stream id unique within the test binary.
func newStreamID(prefix string) eventstore.StreamID {
	return eventstore.StreamID(fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano(), streamSeq.Add(1)))
}

// structEvent is a test payload of a well-known type carrying n.
func structEvent(n int) eventstore.NewEvent {
	s, err := structpb.NewStruct(map[string]any{"n": float64(n), "note": "event"})
	if err != nil {
		panic(err)
	}
	return eventstore.NewEvent{Payload: s}
}

// stringEvent is a test payload of another well-known type.
func stringEvent(v string) eventstore.NewEvent {
	return eventstore.NewEvent{Payload: wrapperspb.String(v)}
}

func events(n int) []eventstore.NewEvent {
	out := make([]eventstore.NewEvent, n)
	for i := range out {
		out[i] = structEvent(i)
	}
	return out
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// create makes a stream with n events owned by owner.
func create(t *testing.T, s eventstore.Store, id eventstore.StreamID, owner string, n int) eventstore.AppendResult {
	t.Helper()
	res, err := s.Append(ctxFor(t), eventstore.AppendRequest{Stream: id, Expected: eventstore.NoStream(), Owner: owner, Events: events(n)})
	require.NoError(t, err)
	require.Equal(t, int64(n), res.Version)
	return res
}

// requireVersion asserts a stream's head version (0: does not exist).
func requireVersion(t *testing.T, s eventstore.Store, id eventstore.StreamID, want int64) {
	t.Helper()
	info, err := s.Stream(ctxFor(t), id)
	if want == 0 {
		require.ErrorIs(t, err, eventstore.ErrNotFound, "stream %s should not exist", id)
		return
	}
	require.NoError(t, err)
	require.Equal(t, want, info.Version, "version of %s", id)
	got, err := s.ReadStream(ctxFor(t), id, 0, 0)
	require.NoError(t, err)
	require.Len(t, got, int(want), "events of %s", id)
}

func requireProtoEqual(t *testing.T, want, got proto.Message) {
	t.Helper()
	require.True(t, proto.Equal(want, got), "payload: want %v, got %v", want, got)
}
