package apiserver

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/proto/errorcode"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

func TestCodeTwins(t *testing.T) {
	t.Parallel()

	t.Run("every domain code has a roadbook.v1.Code twin spelled as the domain spells it", func(t *testing.T) {
		t.Parallel()
		for _, c := range trip.Codes() {
			tw, ok := codeTwins[c]
			require.True(t, ok, "domain code %s has no twin", c)
			require.Equal(t, string(c), errorcode.Word(tw.info), "the twin of %s", c)
		}
		require.Len(t, codeTwins, len(trip.Codes()), "codeTwins names only domain codes")
	})

	t.Run("every roadbook.v1.Code is a domain code's twin, the API's own or the MCP service's own, exactly once", func(t *testing.T) {
		t.Parallel()
		seen := map[roadbookv1.Code]int{}
		for _, tw := range codeTwins {
			seen[tw.info]++
		}
		for _, c := range slices.Concat(apiCodes, mcpCodes) {
			seen[c]++
		}
		for v := range roadbookv1.Code_name {
			c := roadbookv1.Code(v)
			if c == roadbookv1.Code_CODE_UNSPECIFIED {
				require.Zero(t, seen[c])
				continue
			}
			require.Equal(t, 1, seen[c], "%s", c)
		}
	})

	t.Run("a code without a twin is internal, not another code", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, roadbookv1.Code_CODE_UNSPECIFIED, twin("teapot").info)
	})
}
