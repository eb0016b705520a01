package stack_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

func TestListTrips(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "lin", nil)
	var ids []string
	for i := range 5 {
		c := ok(t, s, "create_trip", fmt.Sprintf(`{"sourceUrl":"https://www.komoot.com/tour/%d","title":"Trip %d"}`, 1000+i, i))
		ids = append(ids, c["tripId"].(string))
		h.clock.Add(time.Second)
	}

	t.Run("pages follow nextCursor, newest first, and say when they are truncated", func(t *testing.T) {
		p1 := ok(t, s, "list_trips", `{"limit":2}`)
		require.Equal(t, true, p1["truncated"])
		var seen []string
		cur := p1
		for {
			for _, r := range cur["trips"].([]any) {
				seen = append(seen, r.(map[string]any)["tripId"].(string))
			}
			if cur["truncated"] != true {
				break
			}
			cur = ok(t, s, "list_trips", fmt.Sprintf(`{"limit":2,"cursor":%q}`, cur["nextCursor"]))
		}
		require.Equal(t, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, seen)
	})
	t.Run("a listing of one page is one API call, a first page that hands a cursor out reads the generation first", func(t *testing.T) {
		list := func(args string) int {
			before := h.apiCalls.of(roadbookv1connect.TripServiceListTripsProcedure)
			ok(t, s, "list_trips", args)
			return h.apiCalls.of(roadbookv1connect.TripServiceListTripsProcedure) - before
		}
		require.Equal(t, 1, list(`{}`), "five trips, one page of twenty")
		require.Equal(t, 3, list(`{"limit":2}`), "the generation (one page of 100), then the page again after it")
	})

	t.Run("a tampered cursor is invalid_argument", func(t *testing.T) {
		p1 := ok(t, s, "list_trips", `{"limit":2}`)
		c := p1["nextCursor"].(string)
		body, sig, _ := strings.Cut(c, ".")
		tampered := body[:len(body)-2] + "AA." + sig
		e := fails(t, s, "list_trips", fmt.Sprintf(`{"limit":2,"cursor":%q}`, tampered), "invalid_argument")
		require.Equal(t, "cursor", e["field"])
	})
	t.Run("a cursor is bound to its user and its query", func(t *testing.T) {
		p1 := ok(t, s, "list_trips", `{"limit":2}`)
		fails(t, h.session(t, "other", nil), "list_trips", fmt.Sprintf(`{"limit":2,"cursor":%q}`, p1["nextCursor"]), "invalid_argument")
		fails(t, s, "list_trips", fmt.Sprintf(`{"limit":2,"titleContains":"Trip","cursor":%q}`, p1["nextCursor"]), "invalid_argument")
	})
	t.Run("a finished computation keeps the cursor; a new trip makes it stale", func(t *testing.T) {
		p1 := ok(t, s, "list_trips", `{"limit":2}`)
		ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t)})) // the set of trips changes
		e := fails(t, s, "list_trips", fmt.Sprintf(`{"limit":2,"cursor":%q}`, p1["nextCursor"]), "stale_cursor")
		require.Contains(t, e["message"], "restart from the first page")
		require.Equal(t, "list_trips", e["next"].(map[string]any)["tool"])

		p1 = ok(t, s, "list_trips", `{"limit":2}`)
		computing := p1["trips"].([]any)[0].(map[string]any)
		require.Equal(t, "computing", computing["status"])
		h.recordStages(t, computing["tripId"].(string))
		p2 := ok(t, s, "list_trips", fmt.Sprintf(`{"limit":2,"cursor":%q}`, p1["nextCursor"]))
		require.Len(t, p2["trips"], 2)
	})
}

func TestDigestBudget(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "bud", nil)
	c := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t),
		"settings": map[string]any{"startDate": "2030-06-01", "endDate": "2030-07-01"}}))
	id := c["tripId"].(string)
	h.recordStages(t, id)
	r := call(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
	require.False(t, r.IsError, r.Text)
	var d struct {
		Partial bool              `json:"partial"`
		Stages  []json.RawMessage `json:"stages"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Text), &d))
	require.GreaterOrEqual(t, len(d.Stages), 30, "a 30-day trip has a line per day")
	require.LessOrEqual(t, len(r.Text), 12*1024, "the digest of a 30-day trip fits 12 KB (got %d bytes)", len(r.Text))
	t.Logf("30-day digest: %d stages, %d bytes", len(d.Stages), len(r.Text))
}
