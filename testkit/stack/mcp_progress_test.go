package stack_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/tripstore"
)

func TestProgressNotifications(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	got := make(chan *mcp.ProgressNotificationParams, 16)
	s := h.session(t, "petra", &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		got <- r.Params
	}})
	// callWith calls tool, with a progress token unless token is nil.
	callWith := func(t *testing.T, tool, arguments string, token any) map[string]any {
		t.Helper()
		p := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(arguments)}
		if token != nil {
			p.SetProgressToken(token)
		}
		res, err := s.CallTool(context.Background(), p)
		require.NoError(t, err)
		text := res.Content[0].(*mcp.TextContent).Text
		require.False(t, res.IsError, text)
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &out))
		return out
	}
	// next is the next notification received. Notifications are handled in
	// the order they arrive, so the first one after a call without a token
	// shows whether that call sent one.
	next := func(t *testing.T) *mcp.ProgressNotificationParams {
		t.Helper()
		select {
		case p := <-got:
			return p
		case <-time.After(30 * time.Second):
			require.FailNow(t, "no progress notification arrived")
			return nil
		}
	}
	gpx := gpxFixture(t)
	var tripID string

	t.Run("a call without a progress token gets no notification", func(t *testing.T) {
		created := callWith(t, "create_trip", args(t, map[string]any{"gpx": gpx, "title": "Silent"}), nil)
		tripID = created["tripId"].(string)
		trip := callWith(t, "get_trip", args(t, map[string]any{"tripId": tripID}), "after-silent")
		p := next(t)
		require.Equal(t, "after-silent", p.ProgressToken, "the first notification is the get_trip's: create_trip sent none")
		require.Equal(t, "done", trip["progress"].(map[string]any)["route"].(map[string]any)["state"])
		require.Equal(t, "pending", trip["progress"].(map[string]any)["stages"].(map[string]any)["state"])
		require.EqualValues(t, 1, p.Progress)
		require.EqualValues(t, 4, p.Total)
		require.Equal(t, "route done, stages pending, labels pending, analysis pending", p.Message)
	})
	t.Run("get_trip reports the computations its digest reports, echoing the client's token", func(t *testing.T) {
		h.recordStages(t, tripID)
		trip := callWith(t, "get_trip", args(t, map[string]any{"tripId": tripID}), 7)
		p := next(t)
		require.EqualValues(t, 7, p.ProgressToken)
		progress := trip["progress"].(map[string]any)
		done := 0
		for _, part := range []string{"route", "stages", "labels", "analysis"} {
			if progress[part].(map[string]any)["state"] == "done" {
				done++
			}
		}
		require.Equal(t, 2, done)
		require.EqualValues(t, done, p.Progress)
		require.EqualValues(t, 4, p.Total)
		require.Equal(t, "route done, stages done, labels pending, analysis pending", p.Message)
	})
	t.Run("a failed computation is reported, not counted as done", func(t *testing.T) {
		h.failAnalysis(t, tripID)
		trip := callWith(t, "get_trip", args(t, map[string]any{"tripId": tripID}), "after-failure")
		require.Equal(t, "failed", trip["progress"].(map[string]any)["analysis"].(map[string]any)["state"])
		p := next(t)
		require.Equal(t, "after-failure", p.ProgressToken)
		require.EqualValues(t, 2, p.Progress)
		require.EqualValues(t, 4, p.Total)
		require.Equal(t, "route done, stages done, labels pending, analysis failed", p.Message)
	})
	t.Run("analyze_trip reports the analysis it started", func(t *testing.T) {
		trip := callWith(t, "get_trip", args(t, map[string]any{"tripId": tripID}), nil)
		res := callWith(t, "analyze_trip", args(t, map[string]any{"tripId": tripID, "version": trip["version"]}), "analyze-1")
		require.Equal(t, "analyzing", res["status"])
		p := next(t)
		require.Equal(t, "analyze-1", p.ProgressToken, "get_trip without a token sent none")
		require.EqualValues(t, 0, p.Progress)
		require.EqualValues(t, 1, p.Total)
		require.Equal(t, "analysis pending", p.Message)
	})
	t.Run("create_trip reports a computing trip: an uploaded route is already read", func(t *testing.T) {
		res := callWith(t, "create_trip", args(t, map[string]any{"gpx": gpx, "title": "Loud"}), "create-1")
		require.Equal(t, "computing", res["status"])
		p := next(t)
		require.Equal(t, "create-1", p.ProgressToken)
		require.EqualValues(t, 1, p.Progress)
		require.EqualValues(t, 4, p.Total)
		require.Equal(t, "route done, stages pending, labels pending, analysis pending", p.Message)
	})
	t.Run("a tool with no computation to report sends nothing, even with a token", func(t *testing.T) {
		callWith(t, "list_trips", `{}`, "list-1")
		callWith(t, "get_trip", args(t, map[string]any{"tripId": tripID}), "marker")
		require.Equal(t, "marker", next(t).ProgressToken)
	})
}

// failAnalysis records the trip's running analysis as failed (retryable),
// as the analysis worker does when a provider is down.
func (h *harness) failAnalysis(t *testing.T, id string) {
	t.Helper()
	ctx := context.Background()
	tid := uuid.MustParse(id)
	l, err := h.trips.Load(ctx, tripstore.System(), tid)
	require.NoError(t, err)
	require.NotEmpty(t, l.State.Analyses, "stages computed request an analysis")
	last := l.State.Analyses[len(l.State.Analyses)-1]
	_, err = h.trips.Execute(ctx, tripstore.System(), tid, trip.RecordAnalysisFailed{AnalysisID: last.ID, Reason: "provider down", Retryable: true}, tripstore.Options{})
	require.NoError(t, err)
}
