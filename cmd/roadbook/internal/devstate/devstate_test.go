package devstate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/auth"
)

func TestDevSecrets(t *testing.T) {
	t.Parallel()

	t.Run("secrets are generated once and read back unchanged", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		first, err := LoadOrCreateSecrets(dir)
		require.NoError(t, err)
		require.Len(t, first.UserKey, 64)
		require.NotEqual(t, first.UserKey, first.ServiceKey)
		again, err := LoadOrCreateSecrets(dir)
		require.NoError(t, err)
		require.Equal(t, first, again)
		st, err := os.Stat(filepath.Join(dir, SecretsFile))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	})

	t.Run("a token minted from the data directory verifies against its key and names its user", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		s, err := LoadOrCreateSecrets(dir)
		require.NoError(t, err)
		iss, err := IssuerFor(s)
		require.NoError(t, err)
		tok, err := MintToken(iss, "bob", auth.DefaultAudience, 3600e9)
		require.NoError(t, err)
		v, err := auth.NewVerifier(auth.Config{Users: auth.NewStaticKeys(iss.Key()), UserIssuer: Issuer, Audience: auth.DefaultAudience})
		require.NoError(t, err)
		p, err := v.Verify(context.Background(), tok)
		require.NoError(t, err)
		require.Equal(t, "bob", p.UserID)
		require.True(t, p.Has(auth.ScopeWrite))

		other, err := LoadOrCreateSecrets(t.TempDir())
		require.NoError(t, err)
		otherIss, err := IssuerFor(other)
		require.NoError(t, err)
		forged, err := MintToken(otherIss, "bob", auth.DefaultAudience, 3600e9)
		require.NoError(t, err)
		_, err = v.Verify(context.Background(), forged)
		require.ErrorIs(t, err, auth.ErrInvalidToken, "another data directory's key is not trusted")
	})

	t.Run("a damaged secrets file is refused, not replaced", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, SecretsFile), []byte(`{"userKey":"short"}`), 0o600))
		_, err := LoadOrCreateSecrets(dir)
		require.ErrorContains(t, err, "at least 32 bytes")
	})
}
