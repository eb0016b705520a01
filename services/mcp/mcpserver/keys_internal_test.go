package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
	"github.com/roadbook/roadbook/services/mcp/internal/seal"
)

func TestConfirmationKeys(t *testing.T) {
	t.Parallel()
	cursorKey, confirmKey := []byte(strings.Repeat("c", 32)), []byte(strings.Repeat("k", 32))
	build := func(t *testing.T, separate bool) *Server {
		t.Helper()
		service, err := auth.NewHS256Issuer("mcp-1", []byte(strings.Repeat("s", 32)), "roadbook-mcp")
		require.NoError(t, err)
		agents, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(), Audience: "http://127.0.0.1:1/mcp"})
		require.NoError(t, err)
		cfg := Config{APIBaseURL: "http://127.0.0.1:1", ServiceIssuer: service, AgentVerifier: agents,
			HMACKeys: map[string][]byte{"cursor": cursorKey}, PublicBaseURL: "http://127.0.0.1:1"}
		if separate {
			cfg.ConfirmKeys = map[string][]byte{"confirm": confirmKey}
		}
		s, err := New(cfg)
		require.NoError(t, err)
		return s
	}
	only := func(t *testing.T, id string, key []byte) *seal.Keys {
		t.Helper()
		k, err := seal.NewKeys(id, map[string][]byte{id: key})
		require.NoError(t, err)
		return k
	}
	exp := time.Now().Add(time.Minute)

	t.Run("with a confirmation key, confirmation tokens are signed with it and cursors with the cursor key", func(t *testing.T) {
		t.Parallel()
		s := build(t, true)
		tok, err := s.confirms.Seal("p", 1, exp)
		require.NoError(t, err)
		var v int
		require.NoError(t, only(t, "confirm", confirmKey).Open("p", tok, time.Now(), &v))
		require.ErrorIs(t, only(t, "cursor", cursorKey).Open("p", tok, time.Now(), &v), seal.ErrInvalid, "the cursor key does not verify it")
		cur, err := s.cursors.Seal("p", 1, exp)
		require.NoError(t, err)
		require.NoError(t, only(t, "cursor", cursorKey).Open("p", cur, time.Now(), &v))
		require.ErrorIs(t, s.confirms.Open("p", cur, time.Now(), &v), seal.ErrInvalid, "a cursor's key is no confirmation key")
	})

	t.Run("without one, the cursor keys sign both", func(t *testing.T) {
		t.Parallel()
		s := build(t, false)
		tok, err := s.confirms.Seal("p", 1, exp)
		require.NoError(t, err)
		var v int
		require.NoError(t, only(t, "cursor", cursorKey).Open("p", tok, time.Now(), &v))
	})
}
