package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/roadbook/roadbook/evidence/agent"
	"github.com/roadbook/roadbook/evidence/report"
)

// arguments: undeclared, mistyped and huge arguments on all 13 tools, as
// the attacker on the attacker's own trip (so only the arguments are wrong).
func (h *hostileRun) arguments(ctx context.Context, trip string, v int64) {
	huge := strings.Repeat("A", 5<<20)
	type mut struct {
		name string
		args map[string]any
	}
	base := map[string]map[string]any{
		"list_trips":           {},
		"get_trip":             {"tripId": trip},
		"get_stage":            {"tripId": trip, "stageIndex": 0},
		"search_places":        {"query": "Hamburg"},
		"create_trip":          {"gpx": "<gpx/>"},
		"analyze_trip":         {"tripId": trip, "version": v},
		"add_waypoint":         {"tripId": trip, "version": v, "stageIndex": 0, "name": "w", "location": map[string]any{"lat": 45.0, "lon": 7.0}},
		"choose_accommodation": {"tripId": trip, "version": v, "stageIndex": 0, "accommodationId": "x"},
		"share_trip":           {"tripId": trip, "version": v},
		"unshare_trip":         {"tripId": trip, "version": v},
		"delete_trip":          {"tripId": trip, "version": v},
		"edit_stages":          {"tripId": trip, "version": v, "action": "rest_day", "afterStageIndex": 0},
		"update_trip_settings": {"tripId": trip, "version": v, "settings": map[string]any{"maxDistancePerDayKm": 80}},
	}
	with := func(m map[string]any, k string, val any) map[string]any {
		out := map[string]any{}
		for a, b := range m {
			out[a] = b
		}
		out[k] = val
		return out
	}
	tools := make([]string, 0, len(base))
	for t := range base {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, tool := range tools {
		b := base[tool]
		// The one field per tool to mistype and to blow up.
		field, wrong := "tripId", any(12345)
		switch tool {
		case "list_trips":
			field, wrong = "limit", "ten"
		case "search_places":
			field, wrong = "query", []any{1, 2}
		case "create_trip":
			field, wrong = "gpx", 42
		}
		hugeField := field
		if tool == "list_trips" {
			hugeField = "titleContains"
		}
		deep := any("x")
		for range 5000 {
			deep = []any{deep}
		}
		muts := []mut{
			{"undeclared argument", with(b, "isAdmin", true)},
			{"mistyped " + field, with(b, field, wrong)},
			{"huge " + hugeField + " (5 MiB)", with(b, hugeField, huge)},
			{"5000-deep nesting in an undeclared argument", with(b, "x", deep)},
		}
		if _, ok := b["version"]; ok {
			muts = append(muts, mut{"version 1e300", with(b, "version", 1e300)}, mut{"version -1", with(b, "version", -1)})
		}
		if _, ok := b["stageIndex"]; ok {
			muts = append(muts, mut{"stageIndex 2^53", with(b, "stageIndex", 9007199254740993)})
		}
		for _, m := range muts {
			r, err := h.call(ctx, attacker, tool, m.args)
			h.add("arguments (13 tools)", tool+": "+m.name, mcpOutcome(r, err), refused(r, err))
		}
		// Not an object at all.
		r, err := h.call(ctx, attacker, tool, json.RawMessage(`[1,2,3]`))
		h.add("arguments (13 tools)", tool+": arguments are an array", mcpOutcome(r, err), refused(r, err))
	}
}

// tampered: list cursors and confirmation tokens altered, swapped between
// users, purposes and versions.
func (h *hostileRun) tampered(ctx context.Context, vTrip string, vv int64, aTrip string, av int64, cursor, confirm string) {
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	dot := strings.Index(cursor, ".")
	cursors := map[string]string{
		"cursor: one body character changed":        flip(cursor, dot/2),
		"cursor: one signature character changed":   flip(cursor, len(cursor)-3),
		"cursor: truncated":                         cursor[:len(cursor)-5],
		"cursor: signature removed":                 cursor[:dot],
		"cursor: 5,000 characters":                  strings.Repeat("A", 5000),
		"cursor: a confirmation token":              confirm,
		"cursor: body of one, signature of another": cursor[:dot] + confirm[strings.Index(confirm, "."):],
	}
	keys := make([]string, 0, len(cursors))
	for k := range cursors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r, err := h.call(ctx, victim, "list_trips", map[string]any{"limit": 1, "cursor": cursors[k]})
		h.add("tampered cursors and tokens", k+" (victim)", mcpOutcome(r, err), refused(r, err))
	}
	r, err := h.call(ctx, attacker, "list_trips", map[string]any{"limit": 1, "cursor": cursor})
	h.add("tampered cursors and tokens", "cursor: the victim's genuine cursor used by the attacker", mcpOutcome(r, err), refused(r, err))
	r, err = h.call(ctx, victim, "list_trips", map[string]any{"limit": 1, "cursor": cursor, "titleContains": "victim"})
	h.add("tampered cursors and tokens", "cursor: genuine, for another query", mcpOutcome(r, err), refused(r, err) || r.Code == "stale_cursor")
	cdot := strings.Index(confirm, ".")
	tokens := []struct {
		name, user, tool string
		args             map[string]any
	}{
		{"confirmation: one body character changed", victim, "delete_trip", map[string]any{"tripId": vTrip, "version": vv, "confirmationToken": flip(confirm, cdot/2)}},
		{"confirmation: one signature character changed", victim, "delete_trip", map[string]any{"tripId": vTrip, "version": vv, "confirmationToken": flip(confirm, len(confirm)-3)}},
		{"confirmation: the victim's token used by the attacker on the victim's trip", attacker, "delete_trip", map[string]any{"tripId": vTrip, "version": vv, "confirmationToken": confirm}},
		{"confirmation: the victim's token used by the attacker on its own trip", attacker, "delete_trip", map[string]any{"tripId": aTrip, "version": av, "confirmationToken": confirm}},
		{"confirmation: genuine token, another version", victim, "delete_trip", map[string]any{"tripId": vTrip, "version": vv + 1, "confirmationToken": confirm}},
		{"confirmation: delete token used for unshare_trip", victim, "unshare_trip", map[string]any{"tripId": vTrip, "version": vv, "confirmationToken": confirm}},
		{"confirmation: delete token used for update_trip_settings", victim, "update_trip_settings", map[string]any{"tripId": vTrip, "version": vv, "settings": map[string]any{"maxDistancePerDayKm": 50}, "confirmationToken": confirm}},
		{"confirmation: a list cursor", victim, "delete_trip", map[string]any{"tripId": vTrip, "version": vv, "confirmationToken": cursor}},
		{"confirmation: genuine token, an extra idempotency key", victim, "delete_trip", map[string]any{"tripId": vTrip, "version": vv, "confirmationToken": confirm, "idempotencyKey": "k-1"}},
		{"confirmation: 'abc'", victim, "delete_trip", map[string]any{"tripId": vTrip, "version": vv, "confirmationToken": "abc"}},
	}
	for _, t := range tokens {
		r, err := h.call(ctx, t.user, t.tool, t.args)
		ok := refused(r, err)
		if t.name == "confirmation: genuine token, an extra idempotency key" {
			// The idempotency key is not part of what was confirmed; if the
			// service ignores it in the digest, the call is the confirmed
			// delete itself. Count it as refused only if refused; the run
			// below checks the victim's trip afterwards either way.
			ok = refused(r, err)
		}
		h.add("tampered cursors and tokens", t.name, mcpOutcome(r, err), ok)
	}
}

// injectionCase: a GPX whose track, route and waypoint names carry a
// prompt injection; it must come back only inside data fields.
func (h *hostileRun) injectionCase(ctx context.Context, small string) {
	inj := strings.NewReplacer("<name>", "<name>"+injection+" ", "<desc>", "<desc>"+injection+" ").Replace(small)
	if !strings.Contains(inj, marker) {
		inj = strings.Replace(small, "<trk>", "<trk><name>"+injection+"</name>", 1)
	}
	var leaks []string
	check := func(what string, r agent.Result, err error) {
		if err != nil && strings.Contains(err.Error(), marker) {
			leaks = append(leaks, what+": protocol error")
		}
		var v any
		_ = json.Unmarshal([]byte(r.Text), &v)
		for _, p := range findMarker(v, "") {
			if forbiddenPath(p) || r.IsError {
				leaks = append(leaks, what+": "+p)
			}
		}
	}
	r, err := h.call(ctx, injUser, "create_trip", map[string]any{"gpx": inj})
	check("create_trip", r, err)
	tripID, _ := r.Data["tripId"].(string)
	if tripID != "" {
		sc := &agent.Script{Session: h.sessions[injUser], HintTimeout: 90 * time.Second, Tolerate: tolerated}
		_, _ = sc.Follow(ctx, tripID)
		r, err = h.call(ctx, injUser, "get_trip", map[string]any{"tripId": tripID})
		check("get_trip", r, err)
		paths := findMarker(anyJSON(r.Text), "")
		sort.Strings(paths)
		h.add("prompt injection in GPX names", "valid route, injected names: where get_trip returns the text", fmt.Sprintf("%d data fields: %v", len(paths), paths), !slices.ContainsFunc(paths, forbiddenPath))
		r, err = h.call(ctx, injUser, "get_stage", map[string]any{"tripId": tripID, "stageIndex": 0})
		check("get_stage", r, err)
		r, err = h.call(ctx, injUser, "list_trips", map[string]any{})
		check("list_trips", r, err)
		r, err = h.call(ctx, injUser, "analyze_trip", map[string]any{"tripId": tripID, "version": 1})
		check("analyze_trip (stale version: an error)", r, err)
	}
	// A broken route whose names carry the injection: the error must not echo it.
	broken := strings.Replace(inj, `lat="`, `lat="9`, 1)
	r, err = h.call(ctx, injUser, "create_trip", map[string]any{"gpx": broken})
	check("create_trip (broken route)", r, err)
	h.add("prompt injection in GPX names", "broken route, injected names: error does not echo it", mcpOutcome(r, err), err == nil && r.IsError && !strings.Contains(r.Text, marker))
	// The tool list and server instructions never carry it.
	s := h.sessions[injUser]
	tl, err := s.Raw().ListTools(ctx, nil)
	if err == nil {
		b, _ := json.Marshal(tl)
		if strings.Contains(string(b), marker) {
			leaks = append(leaks, "tools/list")
		}
	}
	if ir := s.Raw().InitializeResult(); ir != nil && strings.Contains(ir.Instructions, marker) {
		leaks = append(leaks, "initialize instructions")
	}
	h.add("prompt injection in GPX names", "text never in a description, hint (next/why/fix) or error", strings.Join(append([]string{fmt.Sprintf("%d leaks", len(leaks))}, leaks...), "; "), len(leaks) == 0)
}

func anyJSON(s string) any {
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	return v
}

// findMarker lists the JSON paths whose string value holds the marker.
func findMarker(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			out = append(out, findMarker(e, path+"."+k)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, findMarker(e, path+"[]")...)
		}
	case string:
		if strings.Contains(x, marker) {
			out = append(out, path)
		}
	}
	return out
}

// forbiddenPath: Roadbook's own words — hints, reasons, messages,
// descriptions, guarantees — must never carry third-party text.
func forbiddenPath(p string) bool {
	for _, k := range []string{".next", ".fix", ".why", ".message", ".description", ".guarantee", ".error", ".hint", ".instructions"} {
		if strings.Contains(p, k) {
			return true
		}
	}
	return false
}

// ownerState is, per owner, the number of streams, the sum of their
// versions and the number of tombstones.
func ownerState(ctx context.Context, dbURL string) (map[string][3]int64, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT owner, sum(n), sum(v), sum(t) FROM (
		SELECT owner, count(*) n, sum(version) v, 0 t FROM streams GROUP BY owner
		UNION ALL SELECT owner, 0, 0, count(*) FROM tombstones GROUP BY owner) x GROUP BY owner`)
	if err != nil {
		return nil, err
	}
	out := map[string][3]int64{}
	for rows.Next() {
		var o string
		var n, v, t int64
		if err := rows.Scan(&o, &n, &v, &t); err != nil {
			return nil, err
		}
		out[o] = [3]int64{n, v, t}
	}
	return out, rows.Err()
}

// diffState counts changes (streams, versions, tombstones) of every owner
// whose name does not start with one of allowed.
func diffState(before, after map[string][3]int64, allowed []string) int64 {
	var d int64
	seen := map[string]bool{}
	for o := range before {
		seen[o] = true
	}
	for o := range after {
		seen[o] = true
	}
	for o := range seen {
		if slices.ContainsFunc(allowed, func(p string) bool { return strings.HasPrefix(o, p) }) {
			continue
		}
		for i := range 3 {
			x := after[o][i] - before[o][i]
			if x < 0 {
				x = -x
			}
			d += x
		}
	}
	return d
}

func (h *hostileRun) result(changed, canaryHits int64, victimIntact bool) report.Result {
	r := report.Result{Kind: "hostile", Command: "make hostile", Date: time.Now().UTC().Format("2006-01-02T15:04Z"),
		Label: "full matrix, once (api, worker and mcp as separate processes)"}
	type agg struct{ tried, ok int }
	per := map[string]*agg{}
	var order []string
	detail := report.Table{Title: "Every input tried", Header: []string{"category", "input", "outcome", "handled correctly"}}
	for _, o := range h.out {
		if per[o.category] == nil {
			per[o.category] = &agg{}
			order = append(order, o.category)
		}
		per[o.category].tried++
		if o.correct {
			per[o.category].ok++
		}
		detail.Rows = append(detail.Rows, []string{o.category, truncate(o.name, 110), truncate(o.got, 140), map[bool]string{true: "yes", false: "**NO**"}[o.correct]})
	}
	sum := report.Table{Title: "Per category", Header: []string{"category", "tried", "refused / handled correctly"}}
	tried, ok := 0, 0
	for _, c := range order {
		sum.Rows = append(sum.Rows, []string{c, fmt.Sprint(per[c].tried), fmt.Sprint(per[c].ok)})
		tried += per[c].tried
		ok += per[c].ok
	}
	sum.Rows = append(sum.Rows, []string{"**all**", fmt.Sprint(tried), fmt.Sprint(ok)})
	allOK := ok == tried
	noChange := changed == 0 && victimIntact
	noHits := canaryHits == 0
	m := h.preauthMem
	memOK := m.refused == m.requests && m.growthMB() < preauthBudgetMB
	r.Summary = []report.Check{
		{Check: "hostile inputs refused / handled correctly", Measured: fmt.Sprintf("%d of %d", ok, tried), Pass: &allOK},
		{Check: "state changed by refused input (store: streams, versions, tombstones of attacked users)", Measured: fmt.Sprintf("%d; victim's trip intact: %v", changed, victimIntact), Pass: &noChange},
		{Check: "requests reaching the SSRF canary", Measured: fmt.Sprint(canaryHits), Pass: &noHits},
	}
	if m.requests > 0 {
		r.Summary = append(r.Summary, report.Check{Check: fmt.Sprintf("API memory under %d unauthenticated 41 MiB requests (within %d MB of idle)", m.requests, preauthBudgetMB),
			Measured: fmt.Sprintf("RSS idle %.0f MB, peak %.0f MB (+%.1f MB); %d of %d refused unauthenticated", float64(m.idleKiB)*1024/1e6, float64(m.peakKiB)*1024/1e6, m.growthMB(), m.refused, m.requests),
			Pass:     &memOK})
	}
	r.Tables = []report.Table{sum, detail}
	r.Notes = []string{buildNote(),
		"Refused correctly = a tool error invalid_argument (not_found for another user's trip, confirmation_required/version_conflict where the token or version is wrong), or a JSON-RPC/HTTP refusal of the request; internal, unavailable or a hang is not.",
		"gpx-edge files are real-world GPX variants: handled correctly = accepted (trip created, as user " + edgeUser + ") or refused as invalid_argument. SSRF URLs: refused, or accepted only when the stored source names a provider host — and the canary must hear nothing.",
		"State changed is measured in PostgreSQL: per owner, streams, the sum of stream versions and tombstones, before and after; users that may legitimately create trips (" + edgeUser + ", " + ssrfUser + ", " + injUser + ", and " + anewUser + ", whose replays after its own delete or unshare must act anew, with the share-code index those new links are written to) are excluded.",
	}
	return r
}
