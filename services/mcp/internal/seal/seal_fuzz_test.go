package seal_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/mcp/internal/seal"
)

// The purposes and payload shapes the MCP tools seal (internal/tools: list
// cursors and confirmation tokens), mirrored here so the fuzzer decodes
// into the same kinds of value the tools do.
const (
	fuzzCursorPurpose  = "roadbook-mcp/list_trips/cursor/v1"
	fuzzConfirmPurpose = "roadbook-mcp/confirmation/v1"
)

type fuzzCursor struct {
	User       string `json:"u"`
	Query      string `json:"q"`
	Generation string `json:"g"`
	Page       string `json:"p"`
}

type fuzzConfirm struct {
	User    string `json:"u"`
	Tool    string `json:"t"`
	Args    string `json:"a"`
	Version int64  `json:"v"`
}

// FuzzOpen hands arbitrary strings to Open as list cursors and confirmation
// tokens. Nothing may panic; every refusal is ErrInvalid or ErrExpired; and a
// token opens only with exactly the payload sealed for that purpose (the
// seeds are the only genuine tokens: tampering never verifies). The check
// reads the payload back rather than comparing token bytes, because the
// fuzzing workers are other processes whose own seals carry other nonces.
func FuzzOpen(f *testing.F) {
	keys, err := seal.NewKeys("k1", map[string][]byte{"k1": []byte(strings.Repeat("h", 32)), "k0": []byte(strings.Repeat("o", 32))})
	require.NoError(f, err)
	now := time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)
	cursor := fuzzCursor{User: "alice", Query: "q", Generation: "g1", Page: "p2"}
	confirm := fuzzConfirm{User: "alice", Tool: "delete_trip", Args: "digest", Version: 7}
	expired := fuzzConfirm{User: "alice", Tool: "unshare_trip"}
	mint := func(purpose string, v any, exp time.Time) string {
		tok, err := keys.Seal(purpose, v, exp)
		require.NoError(f, err)
		return tok
	}
	cur := mint(fuzzCursorPurpose, cursor, now.Add(time.Hour))
	conf := mint(fuzzConfirmPurpose, confirm, now.Add(time.Minute))
	old := mint(fuzzConfirmPurpose, expired, now.Add(-time.Minute))
	for _, seed := range []string{cur, conf, old, cur + "A", strings.Replace(conf, ".", "..", 1), "", ".", "e30.", strings.Repeat("A", 5000)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		var c fuzzCursor
		switch err := keys.Open(fuzzCursorPurpose, token, now, &c); {
		case err == nil:
			require.Equal(t, cursor, c, "a cursor opened with a payload nobody sealed")
		case errors.Is(err, seal.ErrExpired):
			t.Fatalf("no cursor was sealed expired, yet %q opened as expired", token)
		default:
			require.ErrorIs(t, err, seal.ErrInvalid)
		}
		var k fuzzConfirm
		switch err := keys.Open(fuzzConfirmPurpose, token, now, &k); {
		case err == nil:
			require.Equal(t, confirm, k, "a confirmation token opened with a payload nobody sealed")
		case errors.Is(err, seal.ErrExpired):
			// Open does not decode an expired payload, so read the signed
			// body: only the expired seed is genuine and expired.
			body, _, _ := strings.Cut(token, ".")
			raw, err := base64.RawURLEncoding.DecodeString(body)
			require.NoError(t, err)
			var env struct {
				Data fuzzConfirm `json:"d"`
			}
			require.NoError(t, json.Unmarshal(raw, &env))
			require.Equal(t, expired, env.Data, "an expired confirmation token opened with a payload nobody sealed")
		default:
			require.ErrorIs(t, err, seal.ErrInvalid)
		}
	})
}
