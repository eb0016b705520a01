package stack_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

func TestCreateTripIdempotency(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "ida", nil)
	const url = "https://www.komoot.com/tour/123456"
	first := ok(t, s, "create_trip", fmt.Sprintf(`{"sourceUrl":%q,"title":"Ride","settings":{"maxDistancePerDayKm":90,"ebikeMode":true}}`, url))

	// The same call, keys reordered at every level, three minutes later.
	h.clock.Add(3 * time.Minute)
	again := ok(t, s, "create_trip", fmt.Sprintf(`{"settings":{"ebikeMode":true,"maxDistancePerDayKm":90.0},"title":"Ride","sourceUrl":%q}`, url))
	require.Equal(t, first["tripId"], again["tripId"], "a retry within 5 minutes is the same trip")
	require.Equal(t, 1, h.streams(t, "ida"))

	// After the window, the same arguments are a new intention.
	h.clock.Add(6 * time.Minute)
	later := ok(t, s, "create_trip", fmt.Sprintf(`{"sourceUrl":%q,"title":"Ride","settings":{"maxDistancePerDayKm":90,"ebikeMode":true}}`, url))
	require.NotEqual(t, first["tripId"], later["tripId"])
	require.Equal(t, 2, h.streams(t, "ida"))

	t.Run("another user with the same arguments gets their own trip", func(t *testing.T) {
		other := ok(t, h.session(t, "idb", nil), "create_trip", fmt.Sprintf(`{"sourceUrl":%q,"title":"Ride","settings":{"maxDistancePerDayKm":90,"ebikeMode":true}}`, url))
		require.NotEqual(t, later["tripId"], other["tripId"])
	})
	t.Run("create_trip needs exactly one source", func(t *testing.T) {
		e := fails(t, s, "create_trip", `{"title":"x"}`, "invalid_argument")
		require.Equal(t, "sourceUrl", e["field"])
		e = fails(t, s, "create_trip", fmt.Sprintf(`{"sourceUrl":%q,"gpx":"<gpx/>"}`, url), "invalid_argument")
		require.Equal(t, "gpx", e["field"])
	})
}

func TestReplaysAfterOwnWrites(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gpx := gpxFixture(t)

	t.Run("create_trip with a derived key after the trip was deleted creates a new trip", func(t *testing.T) {
		t.Parallel()
		s := h.session(t, "recreate", nil)
		create := args(t, map[string]any{"gpx": gpx, "title": "Again"})
		first := ok(t, s, "create_trip", create)
		id := first["tripId"].(string)
		require.Equal(t, first, ok(t, s, "create_trip", create), "a retry is still the same trip")
		h.recordStages(t, id)
		confirmed(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))

		second := ok(t, s, "create_trip", create)
		require.NotEqual(t, id, second["tripId"], "not the deleted trip's id")
		ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, second["tripId"]))
		require.Equal(t, 1, h.streams(t, "recreate"))
		require.Equal(t, second["tripId"], ok(t, s, "create_trip", create)["tripId"], "a retry of the new call is the new trip")
		require.Equal(t, 1, h.streams(t, "recreate"))
	})
	t.Run("create_trip with an explicit key after the trip was deleted replays exactly", func(t *testing.T) {
		t.Parallel()
		s := h.session(t, "rekeyed", nil)
		create := args(t, map[string]any{"gpx": gpx, "title": "Keyed", "idempotencyKey": "create-keyed-1"})
		first := ok(t, s, "create_trip", create)
		id := first["tripId"].(string)
		h.recordStages(t, id)
		confirmed(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
		require.Equal(t, first, ok(t, s, "create_trip", create), "the caller said it is one call")
		require.Equal(t, 0, h.streams(t, "rekeyed"))
	})
	// revoked is user's trip whose link A (made by share, the arguments
	// without a key) was revoked, within the derived key's window.
	revoked := func(t *testing.T, user string) (s *mcp.ClientSession, id, share string, a map[string]any) {
		s = h.session(t, user, nil)
		id = h.dayTrip(t, s)
		share = fmt.Sprintf(`{"tripId":%q,"version":1}`, id)
		a = ok(t, s, "share_trip", share)
		require.Equal(t, a, ok(t, s, "share_trip", share), "a retry is still link A")
		confirmed(t, s, "unshare_trip", share)
		return s, id, share, a
	}
	t.Run("share_trip with a derived key after an unshare makes a new live link", func(t *testing.T) {
		t.Parallel()
		s, id, share, a := revoked(t, "reshare-derived")
		b := ok(t, s, "share_trip", share)
		require.NotEqual(t, a["url"], b["url"], "not the revoked link")
		require.Equal(t, b["url"], ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))["shareUrl"], "and the trip is shared")
		require.Equal(t, b, ok(t, s, "share_trip", share), "a retry of the new call is link B")
	})
	t.Run("share_trip with a derived key after a re-share by other means answers the live link", func(t *testing.T) {
		t.Parallel()
		s, id, share, a := revoked(t, "reshare-other")
		b := ok(t, s, "share_trip", fmt.Sprintf(`{"tripId":%q,"version":1,"idempotencyKey":"share-other-b"}`, id))
		require.NotEqual(t, a["url"], b["url"])
		require.Equal(t, b, ok(t, s, "share_trip", share))
	})
	t.Run("share_trip with an explicit key after an unshare replays exactly", func(t *testing.T) {
		t.Parallel()
		s := h.session(t, "reshare-keyed", nil)
		id := h.dayTrip(t, s)
		share := fmt.Sprintf(`{"tripId":%q,"version":1,"idempotencyKey":"share-keyed-1"}`, id)
		a := ok(t, s, "share_trip", share)
		confirmed(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
		require.Equal(t, a, ok(t, s, "share_trip", share), "the caller said it is one call")
		require.Empty(t, ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))["shareUrl"])
	})
}

func TestErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ann := h.session(t, "ann", nil)
	bob := h.session(t, "bob", nil)
	created := ok(t, ann, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t)}))
	id := created["tripId"].(string)

	t.Run("another user's trip and a missing trip answer byte for byte the same", func(t *testing.T) {
		theirs := call(t, bob, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
		missing := call(t, bob, "get_trip", fmt.Sprintf(`{"tripId":%q}`, uuid.NewString()))
		require.True(t, theirs.IsError)
		require.Equal(t, missing.Text, theirs.Text)
		require.Equal(t, "not_found", theirs.Err["code"])
		w1 := call(t, bob, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
		w2 := call(t, bob, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, uuid.NewString()))
		require.Equal(t, w2.Text, w1.Text)
	})
	t.Run("a caller's value is never quoted back unbounded", func(t *testing.T) {
		long := strings.Repeat("x", 5000)
		r := call(t, ann, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id+long))
		require.True(t, r.IsError)
		require.Less(t, len(r.Text), 600)
		r = call(t, ann, "get_trip", fmt.Sprintf(`{"tripId":%q,%q:1}`, id, long))
		require.True(t, r.IsError)
		require.Less(t, len(r.Text), 600)
	})
	t.Run("an API validation error names the tool's own argument", func(t *testing.T) {
		e := fails(t, ann, "create_trip", `{"gpx":"<gpx><trk><trkseg></trkseg></trk></gpx>"}`, "invalid_argument")
		require.Equal(t, "gpx", e["field"])
	})
	t.Run("a write before the days exist is a precondition with the call that unblocks it", func(t *testing.T) {
		e := fails(t, ann, "edit_stages", fmt.Sprintf(`{"tripId":%q,"version":1,"action":"rest_day","afterStageIndex":0}`, id), "precondition_failed")
		require.Equal(t, "get_trip", e["next"].(map[string]any)["tool"])
	})
}

func TestConfirmation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "cat", nil)
	newTrip := func(t *testing.T, s *mcp.ClientSession) (string, int64) {
		c := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t), "title": uuid.NewString()}))
		id := c["tripId"].(string)
		h.recordStages(t, id)
		d := ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
		return id, int64(d["version"].(float64))
	}

	t.Run("delete_trip without a token changes nothing and returns the impact and a token", func(t *testing.T) {
		t.Parallel()
		s := h.session(t, "cat-deletes", nil) // its own user: the trip count below is exact
		id, v := newTrip(t, s)
		before := h.version(t, id)
		r := ok(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":%d}`, id, v))
		require.Equal(t, "confirmation_required", r["status"])
		require.Equal(t, true, r["impact"].(map[string]any)["tripDeleted"])
		require.NotEmpty(t, r["confirmationToken"])
		require.Contains(t, r["guarantee"], "does not mean a person agreed")
		require.Equal(t, before, h.version(t, id))

		next := r["next"].(map[string]any)
		require.Equal(t, "delete_trip", next["tool"])
		trips := h.streams(t, "cat-deletes")
		done := ok(t, s, "delete_trip", args(t, next["arguments"].(map[string]any)))
		require.Equal(t, "done", done["status"])
		require.Equal(t, true, done["deleted"])
		fails(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id), "not_found")
		require.Equal(t, trips-1, h.streams(t, "cat-deletes"))

		// Replaying the confirmed call cannot act twice: within the
		// idempotency window it answers the first answer, after it the trip
		// it acted on is gone.
		replay := call(t, s, "delete_trip", args(t, next["arguments"].(map[string]any)))
		if !replay.IsError {
			require.Equal(t, done, replay.Data)
		}
		h.clock.Add(6 * time.Minute)
		fails(t, s, "delete_trip", args(t, next["arguments"].(map[string]any)), "not_found")
		require.Equal(t, trips-1, h.streams(t, "cat-deletes"))
	})

	t.Run("a token for other arguments is refused and nothing happens", func(t *testing.T) {
		t.Parallel()
		id, v := newTrip(t, s)
		r := ok(t, s, "update_trip_settings", fmt.Sprintf(`{"tripId":%q,"version":%d,"settings":{"maxDistancePerDayKm":60}}`, id, v))
		tok := r["confirmationToken"].(string)
		before := h.version(t, id)
		e := fails(t, s, "update_trip_settings", fmt.Sprintf(`{"tripId":%q,"version":%d,"settings":{"maxDistancePerDayKm":120},"confirmationToken":%q}`, id, v, tok), "invalid_argument")
		require.Equal(t, "confirmationToken", e["field"])
		require.Equal(t, before, h.version(t, id))

		// Reordered keys are the same arguments: the token holds.
		done := ok(t, s, "update_trip_settings", fmt.Sprintf(`{"confirmationToken":%q,"settings":{"maxDistancePerDayKm":60.0},"version":%d,"tripId":%q}`, tok, v, id))
		require.Equal(t, "done", done["status"])
		require.EqualValues(t, 60, done["settings"].(map[string]any)["maxDistancePerDayKm"])
	})

	t.Run("a trip that moved between the calls is refused with a fresh impact", func(t *testing.T) {
		t.Parallel()
		id, v := newTrip(t, s)
		r := ok(t, s, "update_trip_settings", fmt.Sprintf(`{"tripId":%q,"version":%d,"settings":{"departureHour":6}}`, id, v))
		tok := r["confirmationToken"].(string)
		moved := ok(t, s, "edit_stages", fmt.Sprintf(`{"tripId":%q,"version":%d,"action":"rest_day","afterStageIndex":0}`, id, v))
		nv := int64(moved["version"].(float64))
		before := h.version(t, id)
		e := fails(t, s, "update_trip_settings", fmt.Sprintf(`{"tripId":%q,"version":%d,"settings":{"departureHour":6},"confirmationToken":%q}`, id, v, tok), "confirmation_required")
		require.EqualValues(t, nv, e["currentVersion"])
		require.NotNil(t, e["impact"])
		require.Equal(t, before, h.version(t, id), "nothing written")
		next := e["next"].(map[string]any)
		require.EqualValues(t, nv, next["arguments"].(map[string]any)["version"])
		done := ok(t, s, "update_trip_settings", args(t, next["arguments"].(map[string]any)))
		require.Equal(t, "done", done["status"])
	})

	t.Run("a forged or expired token is refused", func(t *testing.T) {
		t.Parallel()
		id, v := newTrip(t, s)
		sh := ok(t, s, "share_trip", fmt.Sprintf(`{"tripId":%q,"version":%d}`, id, v))
		require.Contains(t, sh["gpxUrl"], ".gpx")
		r := ok(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":%d}`, id, v))
		require.Equal(t, sh["url"], r["impact"].(map[string]any)["shareLinkRevoked"])
		tok := r["confirmationToken"].(string)
		body, sig, _ := strings.Cut(tok, ".")
		forged := body + "." + strings.Repeat("A", len(sig))
		e := fails(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":%d,"confirmationToken":%q}`, id, v, forged), "invalid_argument")
		require.Equal(t, "confirmationToken", e["field"])
		fails(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":%d,"confirmationToken":"abc"}`, id, v), "invalid_argument")
		// Another tool's token does not transfer.
		d := ok(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":%d}`, id, v))
		fails(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":%d,"confirmationToken":%q}`, id, v, d["confirmationToken"]), "invalid_argument")
	})
}

func TestConfirmationBindsImpact(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "reshare", nil)
	id := h.dayTrip(t, s)
	a := ok(t, s, "share_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
	offer := ok(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
	require.Equal(t, a["url"], offer["impact"].(map[string]any)["shareLinkRevoked"])
	tokenA := offer["confirmationToken"].(string)

	t.Run("a token offered for link A does not revoke link B made after A was revoked", func(t *testing.T) {
		// Link A revoked by another path (here: confirmed at once), then B.
		again := ok(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
		ok(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":1,"confirmationToken":%q,"idempotencyKey":"revoke-a-first"}`, id, again["confirmationToken"]))
		b := ok(t, s, "share_trip", fmt.Sprintf(`{"tripId":%q,"version":1,"idempotencyKey":"share-link-b"}`, id))
		require.NotEqual(t, a["url"], b["url"])

		e := fails(t, s, "unshare_trip", fmt.Sprintf(`{"tripId":%q,"version":1,"confirmationToken":%q}`, id, tokenA), "confirmation_required")
		require.Contains(t, e["message"], "impact changed")
		require.Contains(t, e["message"], "call unshare_trip again")
		require.Equal(t, b["url"], e["impact"].(map[string]any)["shareLinkRevoked"], "the refusal shows the link the act would now revoke")
		still := ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
		require.Equal(t, b["url"], still["shareUrl"], "link B still works")

		// The fresh token the refusal offers is bound to B's impact and acts.
		next := e["next"].(map[string]any)
		done := ok(t, s, "unshare_trip", args(t, next["arguments"].(map[string]any)))
		require.Equal(t, "done", done["status"])
		require.Equal(t, true, done["revoked"])
	})
	t.Run("a delete token offered before a share does not delete the trip with its new link", func(t *testing.T) {
		d := ok(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
		require.Empty(t, d["impact"].(map[string]any)["shareLinkRevoked"])
		ok(t, s, "share_trip", fmt.Sprintf(`{"tripId":%q,"version":1,"idempotencyKey":"share-link-c"}`, id))
		e := fails(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1,"confirmationToken":%q}`, id, d["confirmationToken"]), "confirmation_required")
		require.NotEmpty(t, e["impact"].(map[string]any)["shareLinkRevoked"])
		ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
	})
}

func TestConfirmationExpiry(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "exp", nil)
	c := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t)}))
	id := c["tripId"].(string)
	h.recordStages(t, id)
	r := ok(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1}`, id))
	h.clock.Add(11 * time.Minute)
	e := fails(t, s, "delete_trip", fmt.Sprintf(`{"tripId":%q,"version":1,"confirmationToken":%q}`, id, r["confirmationToken"]), "invalid_argument")
	require.Contains(t, e["message"], "expired")
	ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
}
