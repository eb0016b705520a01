package trip

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStageContentHashIsPinned pins the digest of two known stages: analyses
// are recorded under these hashes in stored events, so a change to how the
// hash is computed (even a faster one) must give the same bytes, or every
// recorded analysis would read as stale.
func TestStageContentHashIsPinned(t *testing.T) {
	t.Parallel()
	pts := testRoute()
	st := Stage{Start: pts[0], End: pts[10], Geometry: pts[:50], GeometryBlobHash: "abc", Date: MustDate("2026-06-01")}
	s := DefaultSettings()

	t.Run("a riding day on the current engine", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "260405681a57be4b51f553c6874a8eee5a6d2534a438fd65cc9ac44ddba7dda4", StageContentHash(st, s))
	})

	t.Run("a rest day on engine 1 with the e-bike mode", func(t *testing.T) {
		t.Parallel()
		st, s := st, s
		st.RestDay, s.Engine, s.EbikeMode = true, 1, true
		require.Equal(t, "c8db4669532d93d74c0e6a353c5159e1fe11df27619d4c9e2e1499f17fc96a33", StageContentHash(st, s))
	})
}
