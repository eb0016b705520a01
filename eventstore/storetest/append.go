package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/roadbook/roadbook/eventstore"
)

func testRoundTrip(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("trip")
	fixed := uuid.New()
	in := []eventstore.NewEvent{structEvent(1), stringEvent("second"), structEvent(3)}
	in[1].ID = fixed
	in[2].Metadata = eventstore.Metadata{CausationID: "c-1", CorrelationID: "k-1", Actor: "alice", ComputedFor: "hash", Trace: map[string]string{"traceparent": "00-1"}}
	res, err := s.Append(ctx, eventstore.AppendRequest{
		Stream: id, Expected: eventstore.NoStream(), Owner: "alice", Events: in,
		Summary: &eventstore.Summary{Title: "Alps", Status: "ready", Data: []byte(`{"km": 420}`)},
	})
	require.NoError(t, err)
	require.Equal(t, int64(3), res.Version)
	require.False(t, res.Replayed)

	got, err := s.ReadStream(ctx, id, 0, 0)
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i, e := range got {
		require.Equal(t, id, e.StreamID)
		require.Equal(t, int64(i+1), e.Version)
		require.NotEqual(t, uuid.Nil, e.ID)
		requireProtoEqual(t, in[i].Payload, e.Payload)
		require.Equal(t, string(in[i].Payload.ProtoReflect().Descriptor().FullName()), e.Type)
		require.Equal(t, in[i].Metadata, e.Metadata)
		require.False(t, e.RecordedAt.IsZero())
		if i > 0 {
			require.Greater(t, e.GlobalPosition, got[i-1].GlobalPosition)
		}
	}
	require.Equal(t, "google.protobuf.StringValue", got[1].Type)
	require.Equal(t, fixed, got[1].ID)
	require.Equal(t, res.FirstPosition, got[0].GlobalPosition)
	require.Equal(t, res.LastPosition, got[2].GlobalPosition)

	tail, err := s.ReadStream(ctx, id, 1, 1)
	require.NoError(t, err)
	require.Len(t, tail, 1)
	require.Equal(t, int64(2), tail[0].Version)
	none, err := s.ReadStream(ctx, id, 3, 0)
	require.NoError(t, err)
	require.Empty(t, none)
	_, err = s.ReadStream(ctx, newStreamID("never"), 0, 0)
	require.ErrorIs(t, err, eventstore.ErrNotFound)

	info, err := s.Stream(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "alice", info.Owner)
	require.Equal(t, int64(3), info.Version)
	require.Equal(t, "Alps", info.Summary.Title)
	require.Equal(t, "ready", info.Summary.Status)
	require.JSONEq(t, `{"km": 420}`, string(info.Summary.Data))

	// Without a summary the summary stays; with one it is replaced.
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(3), Events: events(1)})
	require.NoError(t, err)
	info, err = s.Stream(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "Alps", info.Summary.Title)
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(4), Events: events(1),
		Summary: &eventstore.Summary{Title: "Alps 2", Status: "done", Data: []byte(`{"km": 1}`)}})
	require.NoError(t, err)
	info, err = s.Stream(ctx, id)
	require.NoError(t, err)
	require.Equal(t, int64(5), info.Version)
	require.Equal(t, "Alps 2", info.Summary.Title)
	require.Equal(t, "done", info.Summary.Status)
	require.JSONEq(t, `{"km": 1}`, string(info.Summary.Data))
	require.False(t, info.UpdatedAt.Before(info.CreatedAt))
}

func testAtomicAppend(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("atomic")
	create(t, s, id, "alice", 2)

	// A bad event in the middle of a batch: refused before storage.
	batch := events(3)
	batch[1].Payload = nil
	_, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(2), Events: batch})
	var inv *eventstore.InvalidError
	require.ErrorAs(t, err, &inv)
	require.Contains(t, inv.Field, "events[1]")
	requireVersion(t, s, id, 2)

	// An event the database refuses (a recorded id) after others in the
	// batch were inserted: the whole transaction rolls back.
	first, err := s.ReadStream(ctx, id, 0, 1)
	require.NoError(t, err)
	batch = events(3)
	batch[2].ID = first[0].ID
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(2), Events: batch})
	require.ErrorIs(t, err, eventstore.ErrDuplicateEvent)
	requireVersion(t, s, id, 2)

	// The stream is intact and appendable at the same version.
	res, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(2), Events: events(3)})
	require.NoError(t, err)
	require.Equal(t, int64(5), res.Version)
	requireVersion(t, s, id, 5)
}

func testExpectedVersions(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("kinds")
	conflict := func(err error, current int64) {
		t.Helper()
		require.ErrorIs(t, err, eventstore.ErrVersionConflict)
		var vc *eventstore.VersionConflictError
		require.True(t, errors.As(err, &vc), "want *VersionConflictError, got %v", err)
		require.Equal(t, current, vc.Current)
		require.Equal(t, id, vc.Stream)
	}
	app := func(exp eventstore.ExpectedVersion) (eventstore.AppendResult, error) {
		return s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: exp, Owner: "alice", Events: events(1)})
	}

	_, err := app(eventstore.Exact(1))
	conflict(err, 0)
	_, err = app(eventstore.StreamExists())
	conflict(err, 0)
	requireVersion(t, s, id, 0)

	res, err := app(eventstore.NoStream())
	require.NoError(t, err)
	require.Equal(t, int64(1), res.Version)
	_, err = app(eventstore.NoStream())
	conflict(err, 1)

	res, err = app(eventstore.Exact(1))
	require.NoError(t, err)
	require.Equal(t, int64(2), res.Version)
	_, err = app(eventstore.Exact(1))
	conflict(err, 2)
	_, err = app(eventstore.Exact(7))
	conflict(err, 2)

	res, err = app(eventstore.StreamExists())
	require.NoError(t, err)
	require.Equal(t, int64(3), res.Version)
	res, err = app(eventstore.Any())
	require.NoError(t, err)
	require.Equal(t, int64(4), res.Version)
	requireVersion(t, s, id, 4)

	// Any also creates.
	other := newStreamID("any")
	res, err = s.Append(ctx, eventstore.AppendRequest{Stream: other, Expected: eventstore.Any(), Owner: "alice", Events: events(2)})
	require.NoError(t, err)
	require.Equal(t, int64(2), res.Version)
	requireVersion(t, s, other, 2)
}

func testDuplicateEvent(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	a, b := newStreamID("dup-a"), newStreamID("dup-b")
	ev := structEvent(1)
	ev.ID = uuid.New()
	_, err := s.Append(ctx, eventstore.AppendRequest{Stream: a, Expected: eventstore.NoStream(), Owner: "alice", Events: []eventstore.NewEvent{ev}})
	require.NoError(t, err)

	// The same id again, on the same stream or another: refused, nothing written.
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: a, Expected: eventstore.Any(), Owner: "alice", Events: []eventstore.NewEvent{ev}})
	require.ErrorIs(t, err, eventstore.ErrDuplicateEvent)
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: b, Expected: eventstore.NoStream(), Owner: "alice", Events: []eventstore.NewEvent{structEvent(0), ev}})
	require.ErrorIs(t, err, eventstore.ErrDuplicateEvent)
	requireVersion(t, s, a, 1)
	requireVersion(t, s, b, 0)

	// Twice in one request: refused as invalid, naming the event.
	twin := structEvent(2)
	twin.ID = uuid.New()
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: b, Expected: eventstore.NoStream(), Owner: "alice", Events: []eventstore.NewEvent{twin, twin}})
	var inv *eventstore.InvalidError
	require.ErrorAs(t, err, &inv)
	require.Equal(t, "events[1] id", inv.Field)
	requireVersion(t, s, b, 0)
}

func testOwnerMismatch(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("owned")
	create(t, s, id, "alice", 1)
	for _, exp := range []eventstore.ExpectedVersion{eventstore.Exact(1), eventstore.StreamExists(), eventstore.Any()} {
		_, err := s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: exp, Owner: "mallory", Events: events(1)})
		require.ErrorIs(t, err, eventstore.ErrOwnerMismatch, "expected %s", exp)
	}
	requireVersion(t, s, id, 1)
	info, err := s.Stream(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "alice", info.Owner)
	// The right owner, or none on a CAS append (workers), is accepted.
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(1), Owner: "alice", Events: events(1)})
	require.NoError(t, err)
	_, err = s.Append(ctx, eventstore.AppendRequest{Stream: id, Expected: eventstore.Exact(2), Events: events(1)})
	require.NoError(t, err)
	requireVersion(t, s, id, 3)
}

func testValidation(t *testing.T, h Harness) {
	s := h.New(t)
	ctx := ctxFor(t)
	id := newStreamID("valid")
	ok := func() eventstore.AppendRequest {
		return eventstore.AppendRequest{Stream: id, Expected: eventstore.NoStream(), Owner: "alice", Events: events(1)}
	}
	big := wrapperspb.String(strings.Repeat("x", eventstore.MaxPayloadBytes))
	cases := []struct {
		name  string
		edit  func(r *eventstore.AppendRequest)
		field string
	}{
		{"empty stream id", func(r *eventstore.AppendRequest) { r.Stream = "" }, "stream id"},
		{"stream id with a space", func(r *eventstore.AppendRequest) { r.Stream = "trip 1" }, "stream id"},
		{"stream id too long", func(r *eventstore.AppendRequest) { r.Stream = eventstore.StreamID(strings.Repeat("a", 129)) }, "stream id"},
		{"no expected version", func(r *eventstore.AppendRequest) { r.Expected = eventstore.ExpectedVersion{} }, "expected version"},
		{"Exact(0)", func(r *eventstore.AppendRequest) { r.Expected = eventstore.Exact(0) }, "expected version"},
		{"no events", func(r *eventstore.AppendRequest) { r.Events = nil }, "events"},
		{"too many events", func(r *eventstore.AppendRequest) { r.Events = events(eventstore.MaxEventsPerAppend + 1) }, "events"},
		{"nil payload", func(r *eventstore.AppendRequest) { r.Events[0].Payload = nil }, "events[0] payload"},
		{"payload over 1 MiB", func(r *eventstore.AppendRequest) { r.Events[0].Payload = big }, "events[0] payload"},
		{"no owner on creation", func(r *eventstore.AppendRequest) { r.Owner = "" }, "owner"},
		{"summary data not JSON", func(r *eventstore.AppendRequest) { r.Summary = &eventstore.Summary{Data: []byte(`{"km":`)} }, "summary data"},
		{"summary data not an object", func(r *eventstore.AppendRequest) { r.Summary = &eventstore.Summary{Data: []byte(`[1]`)} }, "summary data"},
		{"empty blob ref", func(r *eventstore.AppendRequest) { r.BlobRefs = [][]byte{{}} }, "blob refs[0]"},
		{"idempotency without key", func(r *eventstore.AppendRequest) {
			r.Idempotency = &eventstore.Idempotency{RequestHash: []byte{1}}
		}, "idempotency key"},
	}
	for _, c := range cases {
		req := ok()
		c.edit(&req)
		_, err := s.Append(ctx, req)
		require.ErrorIs(t, err, eventstore.ErrInvalid, c.name)
		var inv *eventstore.InvalidError
		require.ErrorAs(t, err, &inv, c.name)
		require.Equal(t, c.field, inv.Field, c.name)
		require.NotEmpty(t, inv.Reason, c.name)
		require.Contains(t, err.Error(), c.field, c.name)
	}
	requireVersion(t, s, id, 0)
	page, err := s.ListStreams(ctx, eventstore.ListQuery{Owner: "alice"})
	require.NoError(t, err)
	require.Empty(t, page.Streams, "a refused append must not create a stream")

	_, err = s.ListStreams(ctx, eventstore.ListQuery{})
	require.ErrorIs(t, err, eventstore.ErrInvalid)
	_, err = s.ListStreams(ctx, eventstore.ListQuery{Owner: "alice", Match: []byte(`"x"`)})
	require.ErrorIs(t, err, eventstore.ErrInvalid)
	_, err = s.ReadStream(ctx, "bad id", 0, 0)
	require.ErrorIs(t, err, eventstore.ErrInvalid)
	_, _, err = s.ReadFeed(ctx, eventstore.Cursor{}, 0)
	require.ErrorIs(t, err, eventstore.ErrInvalid)
	require.ErrorIs(t, s.PutBlob(ctx, nil, []byte("x")), eventstore.ErrInvalid)
}
