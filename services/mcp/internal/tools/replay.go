package tools

import (
	"context"
	"net/http"

	"connectrpc.com/connect"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/services/mcp/internal/canonical"
)

// replayedHeader is the API's mark on an answer that replays an
// idempotency key's first answer (apiserver.ReplayedHeader).
const replayedHeader = "Idempotency-Replayed"

// maxStaleReplays bounds how often one call acts anew because the replay
// it got was made false by the caller's own later writes (each new key is
// derived from the last, so a retry of the call walks the same chain).
const maxStaleReplays = 3

// replayed reports whether the API answered with a key's first answer.
func replayed(h http.Header) bool { return h.Get(replayedHeader) == "true" }

// staleReplay decides what a write does with a replayed answer. An
// explicit idempotencyKey is the caller's promise that the calls are one,
// so its replay is answered as is (ADR-080 §3). A derived key is only the
// server's guess that a call within five minutes of the same one is a
// retry: when the caller's own later write made the first answer false (the
// trip it created is deleted, the link it made is revoked), the call is a
// new intention and must act anew under a key of its own — superseded —
// derived from the stale key and what made it stale, so a retry of the new
// call replays the new answer.
func staleReplay(explicit *string, h http.Header, attempt int) bool {
	return explicit == nil && replayed(h) && attempt < maxStaleReplays
}

// superseded is the derived key that replaces key once its answer went
// stale because of what (the deleted trip's id, the revoked link's code).
func superseded(key *string, what string) *string {
	k := canonical.Digest([]byte("roadbook-mcp/idempotency/superseded/v1"), []byte(*key), []byte(what))
	return &k
}

// tripGone reports whether the caller's trip id is deleted (not found).
func (c *call) tripGone(ctx context.Context, id string) (bool, error) {
	_, err := c.env.API.Shares.GetShare(ctx, connect.NewRequest(&roadbookv1.GetShareRequest{TripId: id}))
	if connect.CodeOf(err) == connect.CodeNotFound {
		return true, nil
	}
	return false, err
}
