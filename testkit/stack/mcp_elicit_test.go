package stack_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
)

func TestElicitation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	answer := make(chan bool, 1)
	var asked []string
	s := h.session(t, "eli", &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		if <-answer {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		}
		return &mcp.ElicitResult{Action: "decline"}, nil
	}})
	c := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t)}))
	id := c["tripId"].(string)
	h.recordStages(t, id)

	t.Run("a person who declines leaves the trip untouched", func(t *testing.T) {
		answer <- false
		r := ok(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
		require.Equal(t, "declined", r["status"])
		require.Empty(t, r["confirmationToken"])
		ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
	})
	t.Run("a person who agrees to unshare again after a re-share revokes the new link, not a replay of the first", func(t *testing.T) {
		a := ok(t, s, "share_trip", fmt.Sprintf(`{"tripId":%q,"version":1,"idempotencyKey":"eli-share-a"}`, id))
		answer <- true
		r := ok(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
		require.Equal(t, "done", r["status"])
		b := ok(t, s, "share_trip", fmt.Sprintf(`{"tripId":%q,"version":1,"idempotencyKey":"eli-share-b"}`, id))
		require.NotEqual(t, a["url"], b["url"])
		answer <- true
		r = ok(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
		require.Equal(t, "done", r["status"])
		now := ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
		require.Empty(t, now["shareUrl"], "the second agreement revoked link B")
		asked = asked[:1]
	})
	t.Run("a person who agrees is the confirmation: one call deletes", func(t *testing.T) {
		answer <- true
		r := ok(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
		require.Equal(t, "done", r["status"])
		require.Equal(t, "person", r["confirmedBy"])
		fails(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id), "not_found")
		require.Len(t, asked, 2)
		require.Contains(t, asked[0], "confirm delete trip")
	})
}

func TestStdio(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.Run("a bad token is refused before serving", func(t *testing.T) {
		st, _ := mcp.NewInMemoryTransports()
		require.Error(t, h.mcp.Run(ctx, st, "not-a-token"))
		require.Error(t, h.mcp.Run(ctx, st, ""))
	})
	t.Run("a session runs for the token's user", func(t *testing.T) {
		st, ct := mcp.NewInMemoryTransports()
		done := make(chan error, 1)
		go func() { done <- h.mcp.Run(ctx, st, h.token(t, "sid", auth.ScopeRead, auth.ScopeWrite)) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		require.NoError(t, err)
		c := ok(t, cs, "create_trip", `{"sourceUrl":"https://www.komoot.com/tour/42"}`)
		list := ok(t, cs, "list_trips", `{}`)
		require.Equal(t, c["tripId"], list["trips"].([]any)[0].(map[string]any)["tripId"])
		require.Equal(t, 1, h.streams(t, "sid"))
		require.NoError(t, cs.Close())
		<-done
	})
}
