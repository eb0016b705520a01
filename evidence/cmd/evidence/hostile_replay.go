package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Users of the replay and proxy attacks. reshareUser's trip is set up
// before the state snapshot and must not change during the attacks;
// anewUser's replays are meant to act anew, so it is excluded from the
// state comparison like edgeUser.
const (
	reshareUser = "hostile-reshare"
	anewUser    = "hostile-anew"
)

// reshareSetup is what the set-up leaves for the attacks: a trip whose
// link A was revoked and link B made since, and tokens offered while A was
// live (an unshare token, a delete token).
type reshareSetup struct {
	trip              string
	version           int64
	linkB             string
	unshareA, deleteA string
	err               error
}

// setUpReshare shares reshareUser's trip (link A), takes an unshare and a
// delete confirmation token while A is live, revokes A (confirmed by its
// own token) and shares again (link B).
func (h *hostileRun) setUpReshare(ctx context.Context, gpx string) reshareSetup {
	var s reshareSetup
	if s.trip, s.version, s.err = h.newTrip(ctx, reshareUser, gpx, "reshare trip"); s.err != nil {
		return s
	}
	args := map[string]any{"tripId": s.trip, "version": s.version}
	steps := []struct {
		tool string
		args map[string]any
		take func(map[string]any)
	}{
		{"share_trip", args, nil},
		{"unshare_trip", args, func(d map[string]any) { s.unshareA, _ = d["confirmationToken"].(string) }},
		{"delete_trip", args, func(d map[string]any) { s.deleteA, _ = d["confirmationToken"].(string) }},
		{"unshare_trip", nil, nil}, // args set below: confirm with the unshare token
		{"share_trip", map[string]any{"tripId": s.trip, "version": s.version, "idempotencyKey": "hostile-reshare-link-b"}, func(d map[string]any) { s.linkB, _ = d["url"].(string) }},
	}
	for i, st := range steps {
		a := st.args
		if a == nil {
			a = map[string]any{"tripId": s.trip, "version": s.version, "confirmationToken": s.unshareA, "idempotencyKey": "hostile-reshare-revoke-a"}
		}
		r, err := h.call(ctx, reshareUser, st.tool, a)
		if err != nil || r.IsError {
			s.err = fmt.Errorf("reshare set-up step %d (%s): %v %s", i, st.tool, err, r.Text)
			return s
		}
		if st.take != nil {
			st.take(r.Data)
		}
	}
	if s.unshareA == "" || s.deleteA == "" || s.linkB == "" {
		s.err = fmt.Errorf("reshare set-up: a token or link B is missing")
	}
	return s
}

// tokenReuse: the tokens offered while link A was live, used after A was
// revoked and B made. Each must be refused and leave B live.
func (h *hostileRun) tokenReuse(ctx context.Context, s reshareSetup) {
	const cat = "confirmation reuse across a re-share"
	live := func() bool {
		r, err := h.call(ctx, reshareUser, "get_trip", map[string]any{"tripId": s.trip})
		return err == nil && !r.IsError && r.Data["shareUrl"] == s.linkB
	}
	for _, t := range []struct{ name, tool, token string }{
		{"unshare_trip token offered for link A, used after A was revoked and B made", "unshare_trip", s.unshareA},
		{"delete_trip token offered while link A was live, used after the re-share", "delete_trip", s.deleteA},
	} {
		r, err := h.call(ctx, reshareUser, t.tool, map[string]any{"tripId": s.trip, "version": s.version, "confirmationToken": t.token})
		got := mcpOutcome(r, err)
		still := live()
		if !still {
			got += "; link B no longer live"
		}
		h.add(cat, t.name, got, refused(r, err) && still)
	}
}

// staleReplays: the same call within the derived-key window after the
// caller's own write made the first answer false. Handled correctly = the
// call acts anew (a new trip, a new live link), never the stale answer;
// with an explicit idempotencyKey the first answer exactly (the caller
// said the calls are one).
func (h *hostileRun) staleReplays(ctx context.Context, gpx string) {
	const cat = "replays after the caller's own delete or unshare"
	confirmed := func(tool string, args map[string]any) error {
		r, err := h.call(ctx, anewUser, tool, args)
		if err != nil || r.IsError {
			return fmt.Errorf("%s: %v %s", tool, err, r.Text)
		}
		tok, _ := r.Data["confirmationToken"].(string)
		a := map[string]any{"confirmationToken": tok}
		for k, v := range args {
			a[k] = v
		}
		if r, err = h.call(ctx, anewUser, tool, a); err != nil || r.IsError {
			return fmt.Errorf("%s confirmed: %v %s", tool, err, r.Text)
		}
		return nil
	}
	for _, explicit := range []bool{false, true} {
		kind := "derived key"
		create := map[string]any{"gpx": gpx, "title": "replayed create"}
		if explicit {
			kind = "explicit idempotencyKey"
			create["idempotencyKey"] = "hostile-anew-create-1"
		}
		name := "create_trip (" + kind + ") again after the trip it created was deleted"
		first, err := h.call(ctx, anewUser, "create_trip", create)
		id, _ := first.Data["tripId"].(string)
		if err != nil || first.IsError || id == "" {
			h.add(cat, name, "set-up failed: "+mcpOutcome(first, err), false)
			continue
		}
		ver, err := h.newTripFollow(ctx, anewUser, id)
		if err == nil {
			err = confirmed("delete_trip", map[string]any{"tripId": id, "version": ver})
		}
		if err != nil {
			h.add(cat, name, "set-up failed: "+err.Error(), false)
			continue
		}
		again, err := h.call(ctx, anewUser, "create_trip", create)
		got := mcpOutcome(again, err)
		newID, _ := again.Data["tripId"].(string)
		var ok bool
		if explicit {
			ok = err == nil && !again.IsError && newID == id
			got += "; answered the first trip id: " + fmt.Sprint(newID == id)
		} else {
			gr, gerr := h.call(ctx, anewUser, "get_trip", map[string]any{"tripId": newID})
			ok = err == nil && !again.IsError && newID != id && gerr == nil && !gr.IsError
			got += fmt.Sprintf("; a new trip that exists: %v", ok)
		}
		h.add(cat, name, got, ok)
	}
	trip, v, err := h.newTrip(ctx, anewUser, gpx, "replayed share")
	for _, explicit := range []bool{false, true} {
		kind := "derived key"
		share := map[string]any{"tripId": trip, "version": v}
		if explicit {
			kind = "explicit idempotencyKey"
			share["idempotencyKey"] = "hostile-anew-share-1"
		}
		name := "share_trip (" + kind + ") again after its link was revoked"
		if err != nil {
			h.add(cat, name, "set-up failed: "+err.Error(), false)
			continue
		}
		first, ferr := h.call(ctx, anewUser, "share_trip", share)
		if ferr != nil || first.IsError {
			h.add(cat, name, "set-up failed: "+mcpOutcome(first, ferr), false)
			continue
		}
		if err := confirmed("unshare_trip", map[string]any{"tripId": trip, "version": v}); err != nil {
			h.add(cat, name, "set-up failed: "+err.Error(), false)
			continue
		}
		again, aerr := h.call(ctx, anewUser, "share_trip", share)
		gr, _ := h.call(ctx, anewUser, "get_trip", map[string]any{"tripId": trip})
		liveURL, _ := gr.Data["shareUrl"].(string)
		got := mcpOutcome(again, aerr)
		var ok bool
		if explicit {
			ok = aerr == nil && !again.IsError && again.Data["url"] == first.Data["url"] && liveURL == ""
			got += "; answered the first link exactly, trip left unshared: " + fmt.Sprint(ok)
		} else {
			ok = aerr == nil && !again.IsError && again.Data["url"] != first.Data["url"] && liveURL != "" && again.Data["url"] == liveURL
			got += "; answered a new link that is live: " + fmt.Sprint(ok)
			if ok { // leave the trip unshared for the explicit-key case
				_ = confirmed("unshare_trip", map[string]any{"tripId": trip, "version": v})
			}
		}
		h.add(cat, name, got, ok)
	}
}

// newTripFollow follows a created trip's hints until nothing is pending.
func (h *hostileRun) newTripFollow(ctx context.Context, user, id string) (int64, error) {
	r, err := h.call(ctx, user, "get_trip", map[string]any{"tripId": id})
	deadline := time.Now().Add(90 * time.Second)
	for err == nil && !r.IsError && r.Data["partial"] == true && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		r, err = h.call(ctx, user, "get_trip", map[string]any{"tripId": id})
	}
	if err != nil || r.IsError {
		return 0, fmt.Errorf("get_trip: %v %s", err, r.Text)
	}
	return agentNum(r.Data["version"]), nil
}

// proxyHeaders: public share reads behind the one trusted proxy the API is
// configured for (the harness, appending the "client" address as the
// right-most X-Forwarded-For entry). A client writing a fresh left-most
// entry on every request must stay in one bucket (refused 429 after the
// public limit of 120 a minute); another client behind the same proxy
// must not be limited by it.
func (h *hostileRun) proxyHeaders(ctx context.Context, shareURL string) {
	const cat = "proxy headers (public share reads)"
	code := shareURL[strings.LastIndex(shareURL, "/")+1:]
	get := func(xff string) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.c.APIURL+"/s/"+code+".gpx", nil)
		req.Header.Set("X-Forwarded-For", xff)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	okBefore, limited := 0, false
	for i := range 200 {
		s := get(fmt.Sprintf("198.51.100.%d, 10.%d.0.1, 203.0.113.50", i%250, i%250))
		if s == http.StatusTooManyRequests {
			limited = true
			break
		}
		if s == http.StatusOK {
			okBefore++
		}
	}
	h.add(cat, "a fresh spoofed left-most X-Forwarded-For entry on each of up to 200 reads (limit 120 a minute)",
		fmt.Sprintf("%d answered, then HTTP 429: %v", okBefore, limited), limited && okBefore <= 120)
	s := get("203.0.113.51")
	h.add(cat, "another client behind the same proxy, right after", fmt.Sprintf("HTTP %d", s), s == http.StatusOK)
	s = get("203.0.113.51, 203.0.113.50")
	h.add(cat, "the limited client writing the other client's address left of its own", fmt.Sprintf("HTTP %d (keyed on the right-most)", s), s == http.StatusTooManyRequests)
}
