package seal_test

import (
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
// tokens. Nothing may panic; every refusal is ErrInvalid or ErrExpired; and
// a token opens only if its signed body is, byte for byte, the body of a
// token this key set sealed for that purpose — tampering never verifies.
func FuzzOpen(f *testing.F) {
	keys, err := seal.NewKeys("k1", map[string][]byte{"k1": []byte(strings.Repeat("h", 32)), "k0": []byte(strings.Repeat("o", 32))})
	require.NoError(f, err)
	now := time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)
	genuine := map[string]string{} // signed body → purpose
	seal1 := func(purpose string, v any, exp time.Time) string {
		tok, err := keys.Seal(purpose, v, exp)
		require.NoError(f, err)
		body, _, _ := strings.Cut(tok, ".")
		genuine[body] = purpose
		return tok
	}
	cur := seal1(fuzzCursorPurpose, fuzzCursor{User: "alice", Query: "q", Generation: "g1", Page: "p2"}, now.Add(time.Hour))
	conf := seal1(fuzzConfirmPurpose, fuzzConfirm{User: "alice", Tool: "delete_trip", Args: "digest", Version: 7}, now.Add(time.Minute))
	old := seal1(fuzzConfirmPurpose, fuzzConfirm{User: "alice", Tool: "unshare_trip"}, now.Add(-time.Minute))
	for _, seed := range []string{cur, conf, old, cur + "A", strings.Replace(conf, ".", "..", 1), "", ".", "e30.", strings.Repeat("A", 5000)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		for _, purpose := range []string{fuzzCursorPurpose, fuzzConfirmPurpose} {
			var c fuzzCursor
			var k fuzzConfirm
			var dst any = &c
			if purpose == fuzzConfirmPurpose {
				dst = &k
			}
			err := keys.Open(purpose, token, now, dst)
			body, _, _ := strings.Cut(token, ".")
			switch {
			case err == nil, errors.Is(err, seal.ErrExpired):
				require.Equal(t, purpose, genuine[body], "a token verified whose signed body was never sealed for %s", purpose)
			default:
				require.ErrorIs(t, err, seal.ErrInvalid)
			}
		}
	})
}
