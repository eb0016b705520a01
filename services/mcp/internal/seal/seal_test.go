package seal_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/mcp/internal/seal"
)

var (
	t0   = time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)
	key1 = bytes.Repeat([]byte("k"), 32)
	key2 = bytes.Repeat([]byte("q"), 40)
)

type payload struct {
	User string `json:"u"`
	N    int    `json:"n"`
}

func TestSeal(t *testing.T) {
	t.Parallel()
	keys, err := seal.NewKeys("a", map[string][]byte{"a": key1})
	require.NoError(t, err)

	t.Run("a sealed token opens to its data before expiry", func(t *testing.T) {
		t.Parallel()
		tok, err := keys.Seal("cursor", payload{"ann", 3}, t0.Add(time.Minute))
		require.NoError(t, err)
		var p payload
		require.NoError(t, keys.Open("cursor", tok, t0, &p))
		require.Equal(t, payload{"ann", 3}, p)
	})
	t.Run("two seals of the same data differ by their nonce", func(t *testing.T) {
		t.Parallel()
		a, err := keys.Seal("cursor", payload{"ann", 3}, t0)
		require.NoError(t, err)
		b, err := keys.Seal("cursor", payload{"ann", 3}, t0)
		require.NoError(t, err)
		require.NotEqual(t, a, b)
	})
	t.Run("an expired token is refused as expired", func(t *testing.T) {
		t.Parallel()
		tok, err := keys.Seal("cursor", payload{"ann", 3}, t0.Add(time.Minute))
		require.NoError(t, err)
		require.ErrorIs(t, keys.Open("cursor", tok, t0.Add(time.Minute), &payload{}), seal.ErrExpired)
	})
	t.Run("a token sealed for another purpose is invalid", func(t *testing.T) {
		t.Parallel()
		tok, err := keys.Seal("cursor", payload{"ann", 3}, t0.Add(time.Minute))
		require.NoError(t, err)
		require.ErrorIs(t, keys.Open("confirm", tok, t0, &payload{}), seal.ErrInvalid)
	})
	t.Run("a tampered body or signature is invalid", func(t *testing.T) {
		t.Parallel()
		tok, err := keys.Seal("cursor", payload{"ann", 3}, t0.Add(time.Minute))
		require.NoError(t, err)
		body, sig, _ := strings.Cut(tok, ".")
		flip := func(s string) string {
			b := []byte(s)
			if b[3] == 'A' {
				b[3] = 'B'
			} else {
				b[3] = 'A'
			}
			return string(b)
		}
		require.ErrorIs(t, keys.Open("cursor", flip(body)+"."+sig, t0, &payload{}), seal.ErrInvalid)
		require.ErrorIs(t, keys.Open("cursor", body+"."+flip(sig), t0, &payload{}), seal.ErrInvalid)
		require.ErrorIs(t, keys.Open("cursor", "garbage", t0, &payload{}), seal.ErrInvalid)
		require.ErrorIs(t, keys.Open("cursor", strings.Repeat("a", 5000), t0, &payload{}), seal.ErrInvalid)
	})
	t.Run("a rotated key still opens old tokens and a removed one does not", func(t *testing.T) {
		t.Parallel()
		old, err := keys.Seal("cursor", payload{"ann", 1}, t0.Add(time.Minute))
		require.NoError(t, err)
		rotated, err := seal.NewKeys("b", map[string][]byte{"a": key1, "b": key2})
		require.NoError(t, err)
		require.NoError(t, rotated.Open("cursor", old, t0, &payload{}))
		fresh, err := rotated.Seal("cursor", payload{"ann", 2}, t0.Add(time.Minute))
		require.NoError(t, err)
		require.ErrorIs(t, keys.Open("cursor", fresh, t0, &payload{}), seal.ErrInvalid)
	})
	t.Run("short keys and a missing current key are refused", func(t *testing.T) {
		t.Parallel()
		_, err := seal.NewKeys("a", map[string][]byte{"a": []byte("short")})
		require.ErrorContains(t, err, "at least 32")
		_, err = seal.NewKeys("z", map[string][]byte{"a": key1})
		require.ErrorContains(t, err, "not among")
	})
}
