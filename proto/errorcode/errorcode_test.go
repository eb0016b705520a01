package errorcode_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/proto/errorcode"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

func TestWords(t *testing.T) {
	t.Parallel()
	t.Run("every code but unspecified has one word, and the word names it back", func(t *testing.T) {
		t.Parallel()
		seen := map[string]bool{}
		for v := range roadbookv1.Code_name {
			c := roadbookv1.Code(v)
			w := errorcode.Word(c)
			if c == roadbookv1.Code_CODE_UNSPECIFIED {
				require.Empty(t, w)
				continue
			}
			require.NotEmpty(t, w, "%s has no word", c)
			require.False(t, seen[w], "word %s twice", w)
			seen[w] = true
			require.Equal(t, c, errorcode.Of(w))
		}
	})
	t.Run("an unknown word is no code", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, roadbookv1.Code_CODE_UNSPECIFIED, errorcode.Of("teapot"))
		require.Empty(t, errorcode.Word(roadbookv1.Code(999)))
	})
}
