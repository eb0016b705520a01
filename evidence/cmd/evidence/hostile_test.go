package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFindMarker(t *testing.T) {
	t.Parallel()
	var v any
	require.NoError(t, json.Unmarshal([]byte(`{"title":"x `+marker+`","stages":[{"label":"`+marker+`"}],"next":{"why":"`+marker+`"}}`), &v))
	paths := findMarker(v, "")
	require.ElementsMatch(t, []string{".title", ".stages[].label", ".next.why"}, paths)

	t.Run("hints, messages and descriptions are forbidden places", func(t *testing.T) {
		t.Parallel()
		require.True(t, forbiddenPath(".next.why"))
		require.True(t, forbiddenPath(".error.message"))
		require.True(t, forbiddenPath(".tripAlerts[].fix.arguments.x"))
		require.False(t, forbiddenPath(".title"))
		require.False(t, forbiddenPath(".stages[].label"))
	})
}

func TestDiffState(t *testing.T) {
	t.Parallel()
	before := map[string][3]int64{"victim": {1, 5, 0}, "hostile-edge-1": {0, 0, 0}}
	after := map[string][3]int64{"victim": {1, 5, 0}, "hostile-edge-1": {3, 9, 0}}
	require.Zero(t, diffState(before, after, []string{"hostile-edge"}), "allowed owners may change")
	after["victim"] = [3]int64{1, 6, 0}
	after["attacker"] = [3]int64{1, 2, 0}
	require.Equal(t, int64(4), diffState(before, after, []string{"hostile-edge"}), "a new version and a new stream of protected owners count")
}
