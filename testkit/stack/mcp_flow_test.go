package stack_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAgentLoop(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := h.session(t, "ann", nil)
	gpx := gpxFixture(t)

	created := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpx, "title": "Oslo to Trondheim"}))
	id := created["tripId"].(string)
	require.EqualValues(t, 1, created["version"])
	require.Equal(t, "computing", created["status"])
	next := created["next"].(map[string]any)
	require.Equal(t, "get_trip", next["tool"])
	require.Equal(t, id, next["arguments"].(map[string]any)["tripId"])

	t.Run("a trip whose days are not computed says partial and what to call next", func(t *testing.T) {
		d := ok(t, s, "get_trip", args(t, next["arguments"].(map[string]any)))
		require.Equal(t, true, d["partial"])
		require.Empty(t, d["stages"])
		require.Equal(t, "get_trip", d["next"].(map[string]any)["tool"])
		require.Contains(t, []any{"pending", "running"}, d["progress"].(map[string]any)["stages"].(map[string]any)["state"])
	})

	h.recordStages(t, id)
	d := ok(t, s, "get_trip", fmt.Sprintf(`{"tripId":%q}`, id))
	stages := d["stages"].([]any)
	require.Greater(t, len(stages), 2)
	version := int64(d["version"].(float64))

	t.Run("get_stage drills into one day", func(t *testing.T) {
		st := ok(t, s, "get_stage", fmt.Sprintf(`{"tripId":%q,"stageIndex":1}`, id))
		require.EqualValues(t, 1, st["index"])
		require.Greater(t, st["distanceKm"].(float64), 10.0)
	})

	t.Run("a stale version is a version_conflict naming the current one, and nothing is written", func(t *testing.T) {
		before := h.version(t, id)
		e := fails(t, s, "edit_stages", fmt.Sprintf(`{"tripId":%q,"version":%d,"action":"rest_day","afterStageIndex":0}`, id, version+7), "version_conflict")
		require.EqualValues(t, version, e["currentVersion"])
		require.Equal(t, "get_trip", e["next"].(map[string]any)["tool"])
		require.Equal(t, before, h.version(t, id))
	})

	t.Run("edit_stages names the one field an action misses or must not have", func(t *testing.T) {
		e := fails(t, s, "edit_stages", fmt.Sprintf(`{"tripId":%q,"version":%d,"action":"move","stageIndex":1}`, id, version), "invalid_argument")
		require.Equal(t, "action=move needs toIndex", e["message"])
		require.Equal(t, "toIndex", e["field"])
		e = fails(t, s, "edit_stages", fmt.Sprintf(`{"tripId":%q,"version":%d,"action":"delete","stageIndex":1,"distanceKm":20}`, id, version), "invalid_argument")
		require.Equal(t, "distanceKm", e["field"])
		require.Contains(t, e["message"], "action=delete does not take distanceKm")
	})

	t.Run("retrying with the current version succeeds and answers the new one", func(t *testing.T) {
		r := ok(t, s, "edit_stages", fmt.Sprintf(`{"tripId":%q,"version":%d,"action":"rest_day","afterStageIndex":0}`, id, version))
		require.EqualValues(t, version+1, r["version"])
		require.Equal(t, true, r["stages"].([]any)[1].(map[string]any)["restDay"])
	})
}

func TestFollowingNextCompletesATrip(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, true)
	s := h.session(t, "nia", nil)

	res := ok(t, s, "create_trip", args(t, map[string]any{"gpx": gpxFixture(t), "title": "Oslo to Trondheim"}))
	// The agent's loop: call whatever next says, until an answer has none.
	// The bound is liveness, not speed: the waits are the hints' own.
	calls := 0
	for res["next"] != nil {
		next := res["next"].(map[string]any)
		calls++
		require.Less(t, calls, 300, "the trip never completed following next: %v", res)
		if after, ok := next["afterSeconds"].(float64); ok && after > 0 {
			time.Sleep(100 * time.Millisecond) // the hint says wait; the test waits a little, many times
		}
		res = ok(t, s, next["tool"].(string), args(t, next["arguments"].(map[string]any)))
	}
	require.Equal(t, false, res["partial"])
	require.Equal(t, "ready", res["status"])
	p := res["progress"].(map[string]any)
	for _, part := range []string{"route", "stages", "analysis", "labels"} {
		require.Equal(t, "done", p[part].(map[string]any)["state"], part)
	}
	stages := res["stages"].([]any)
	require.GreaterOrEqual(t, len(stages), 627/80)
	for _, st := range stages {
		require.Equal(t, true, st.(map[string]any)["analyzed"])
	}
	first, last := stages[0].(map[string]any), stages[len(stages)-1].(map[string]any)
	require.Equal(t, "Oslo", first["from"], "the worker's default gazetteer labels the stage ends")
	require.NotEmpty(t, last["to"])
}
