package stack_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/testkit/fixtures"
)

// TestInlineGPXByteOrderMark: create_trip's inline gpx reaches the API byte
// for byte, so a document that starts with a UTF-8 byte-order mark — sent as
// the raw character or as the JSON escape \ufeff — is read like any other
// (DOMAIN §2), and the evidence run's waypoint-only BOM file is refused for
// its missing track, naming the argument and the reason.
func TestInlineGPXByteOrderMark(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gpx := gpxFixture(t)
	require.True(t, strings.HasPrefix(gpx, "<?xml"))

	for _, tc := range []struct {
		name, user, args string
	}{
		{"as the raw character", "bom-raw", args(t, map[string]any{"gpx": "\ufeff" + gpx})},
		{"as a JSON escape", "bom-escaped", strings.Replace(args(t, map[string]any{"gpx": gpx}), `"gpx":"`, `"gpx":"\ufeff`, 1)},
	} {
		t.Run("a byte-order mark sent "+tc.name+" is read past", func(t *testing.T) {
			t.Parallel()
			s := h.session(t, tc.user, nil)
			created := ok(t, s, "create_trip", tc.args)
			id, _ := created["tripId"].(string)
			require.NotEmpty(t, id)
			got := ok(t, s, "get_trip", args(t, map[string]any{"tripId": id}))
			require.Equal(t, "brouter_fastbike_0", got["title"])
			require.InDelta(t, 627, got["distanceKm"], 15)
		})
	}
	t.Run("the waypoint-only BOM file is refused for its missing track and writes nothing", func(t *testing.T) {
		t.Parallel()
		doc := fixtures.Read(t, fixtures.UnicodeBOM)
		require.True(t, strings.HasPrefix(string(doc), "\ufeff<?xml"))
		s := h.session(t, "bom-waypoint", nil)
		e := fails(t, s, "create_trip", args(t, map[string]any{"gpx": string(doc)}), "invalid_argument")
		require.Equal(t, "gpx", e["field"])
		msg, _ := e["message"].(string)
		require.Contains(t, msg, "no track points (trkpt) or route points (rtept)")
		require.Contains(t, msg, "1 waypoint")
		require.Zero(t, h.streams(t, "bom-waypoint"))
	})
}
