package stack_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

func TestUndeclaredArguments(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "una", nil)
	created := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t)}))
	id := created["tripId"].(string)
	h.recordStages(t, id)
	version := h.version(t, id)
	streams := h.streams(t, "una")

	for _, d := range h.mcp.Tools() {
		t.Run(d.Name+" refuses an undeclared argument by name and does nothing", func(t *testing.T) {
			in := d.InputSchema.(*jsonschema.Schema)
			a := map[string]any{"zzUndeclared": true, "aaAlsoUndeclared": 1}
			if _, ok := in.Properties["tripId"]; ok {
				a["tripId"] = id
			}
			if _, ok := in.Properties["version"]; ok {
				a["version"] = 1
			}
			if _, ok := in.Properties["gpx"]; ok {
				a["gpx"] = gpxFixture(t)
			}
			e := fails(t, s, d.Name, args(t, a), "invalid_argument")
			require.Equal(t, "aaAlsoUndeclared", e["field"], "the first undeclared key in sorted order")
			require.Contains(t, e["message"], `"aaAlsoUndeclared"`)
		})
	}
	t.Run("a nested undeclared key is named with its path", func(t *testing.T) {
		e := fails(t, s, "update_trip_settings", fmt.Sprintf(`{"tripId":%q,"version":1,"settings":{"maxDistancePerDayKm":90,"speed":3}}`, id), "invalid_argument")
		require.Equal(t, "settings.speed", e["field"])
	})
	t.Run("nothing happened in the store", func(t *testing.T) {
		require.Equal(t, streams, h.streams(t, "una"))
		require.Equal(t, version, h.version(t, id))
		d := ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
		require.Empty(t, d["shareUrl"])
		require.False(t, strings.Contains(fmt.Sprint(d["stages"]), "restDay:true"))
	})
}
