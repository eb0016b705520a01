package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/eventstore"
	"github.com/roadbook/roadbook/eventstore/sqlite"
)

func TestListStreams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("pages walk every stream newest first, ties broken by id", func(t *testing.T) {
		t.Parallel()
		c := newClock()
		s := openStore(t, sqlite.WithClock(c.Now))
		var want []eventstore.StreamID
		for i := range 7 {
			id := eventstore.StreamID(fmt.Sprintf("trip-%d", i))
			create(t, s, id, "alice", ev("x"))
			if i%2 == 1 {
				c.Advance(time.Second) // pairs share created_at
			}
			want = append([]eventstore.StreamID{id}, want...)
		}
		create(t, s, "other", "bob", ev("x"))
		var got []eventstore.StreamID
		var after *eventstore.ListPosition
		pages := 0
		for {
			page, err := s.ListStreams(ctx, eventstore.ListQuery{Owner: "alice", Limit: 3, After: after})
			require.NoError(t, err)
			pages++
			for _, st := range page.Streams {
				got = append(got, st.ID)
			}
			if page.Next == nil {
				break
			}
			after = page.Next
		}
		require.Equal(t, want, got)
		require.Equal(t, 3, pages)
	})

	t.Run("status and match filter on the summary", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		put := func(id eventstore.StreamID, status, data string) {
			_, err := s.Append(ctx, eventstore.AppendRequest{
				Stream: id, Expected: eventstore.NoStream(), Owner: "o", Events: events("x"),
				Summary: &eventstore.Summary{Title: string(id), Status: status, Data: []byte(data)},
			})
			require.NoError(t, err)
		}
		put("a", "planned", `{"country":"FR","km":120,"done":true,"tags":["gravel"],"a.b":"dotted"}`)
		put("b", "planned", `{"country":"FR","km":120.0,"done":false}`)
		put("c", "done", `{"country":"IT","km":"120","done":1}`)
		put("d", "planned", `{}`)
		list := func(status, match string) []eventstore.StreamID {
			t.Helper()
			q := eventstore.ListQuery{Owner: "o", Status: status}
			if match != "" {
				q.Match = []byte(match)
			}
			page, err := s.ListStreams(ctx, q)
			require.NoError(t, err)
			var ids []eventstore.StreamID
			for _, st := range page.Streams {
				ids = append(ids, st.ID)
			}
			return ids
		}
		require.Equal(t, []eventstore.StreamID{"d", "b", "a"}, list("planned", ""))
		require.Equal(t, []eventstore.StreamID{"b", "a"}, list("", `{"country": "FR"}`))
		require.Equal(t, []eventstore.StreamID{"b", "a"}, list("", `{"km": 120}`), "numbers compare numerically, the string \"120\" does not match")
		require.Equal(t, []eventstore.StreamID{"a"}, list("", `{"done": true}`), "true does not match 1")
		require.Equal(t, []eventstore.StreamID{"a"}, list("", `{"tags": ["gravel"], "country": "FR"}`))
		require.Equal(t, []eventstore.StreamID{"a"}, list("", `{"a.b": "dotted"}`), "a key with a dot is one key, not a path")
		require.Empty(t, list("", `{"country": "FR", "km": 99}`))
		require.Empty(t, list("", `{"missing": null}`), "a missing key does not match null")
		require.Equal(t, []eventstore.StreamID{"c"}, list("done", `{}`))
	})

	t.Run("bad queries are refused", func(t *testing.T) {
		t.Parallel()
		s := openStore(t)
		for _, q := range []eventstore.ListQuery{
			{},
			{Owner: "o", Limit: -1},
			{Owner: "o", Match: []byte(`[1]`)},
			{Owner: "o", Match: []byte(`{`)},
		} {
			_, err := s.ListStreams(ctx, q)
			require.ErrorIs(t, err, eventstore.ErrInvalid, "%+v", q)
		}
	})
}
