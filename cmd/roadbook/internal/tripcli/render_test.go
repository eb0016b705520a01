package tripcli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

func TestSparkline(t *testing.T) {
	t.Parallel()

	t.Run("a climb from the scale's bottom to its top spans every block", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "▁▂▃▄▅▆▇█", sparkline([]float32{0, 100, 200, 300, 400, 500, 600, 700}, 8, 0, 700))
	})

	t.Run("a summit between samples is kept: each column shows its slice's highest point", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "▁█▁", sparkline([]float32{0, 0, 0, 700, 0, 0, 0, 0, 0}, 3, 0, 700))
	})

	t.Run("a flat stage on a shared scale sits at its height, not at the top", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "▄▄▄▄", sparkline([]float32{300, 300, 300, 300}, 4, 0, 700))
	})

	t.Run("fewer points than columns draw one column per point, and none for no points", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, "▁█", sparkline([]float32{1, 2}, 40, 1, 2))
		require.Empty(t, sparkline(nil, 40, 0, 1))
	})

	t.Run("the range spans every profile", func(t *testing.T) {
		t.Parallel()
		lo, hi := elevationRange([][]float32{{5, 9}, {-3, 4}, {}})
		require.Equal(t, -3.0, lo)
		require.Equal(t, 9.0, hi)
	})
}

func TestProgress(t *testing.T) {
	t.Parallel()
	done := &roadbookv1.PartProgress{State: roadbookv1.ComputationState_COMPUTATION_STATE_DONE}
	pending := &roadbookv1.PartProgress{State: roadbookv1.ComputationState_COMPUTATION_STATE_PENDING}

	t.Run("the bar counts settled parts whole and running parts by done over total", func(t *testing.T) {
		t.Parallel()
		p := &roadbookv1.Progress{Route: done, Stages: done, Labels: &roadbookv1.PartProgress{
			State: roadbookv1.ComputationState_COMPUTATION_STATE_RUNNING, Done: 2, Total: 8}, Analysis: pending}
		require.InDelta(t, (1+1+0.25+0)/4, overall(p), 1e-9)
		line := progressLine(p, 20)
		require.Contains(t, line, "[███████████░░░░░░░░░]  56%")
		require.Contains(t, line, "labels running 2/8")
		require.Contains(t, line, "analysis pending")
	})

	t.Run("the watch stops when the trip is ready and no longer partial, or failed", func(t *testing.T) {
		t.Parallel()
		require.False(t, roadbookDone(&roadbookv1.TripDigest{Status: roadbookv1.TripStatus_TRIP_STATUS_COMPUTING}))
		require.False(t, roadbookDone(&roadbookv1.TripDigest{Status: roadbookv1.TripStatus_TRIP_STATUS_READY, Partial: true}))
		require.True(t, roadbookDone(&roadbookv1.TripDigest{Status: roadbookv1.TripStatus_TRIP_STATUS_READY}))
		require.True(t, roadbookDone(&roadbookv1.TripDigest{Status: roadbookv1.TripStatus_TRIP_STATUS_FAILED, Partial: true}))
	})
}

func TestPrintDigest(t *testing.T) {
	t.Parallel()

	t.Run("a rest day's row says where the rider stays, under the riding days' places", func(t *testing.T) {
		t.Parallel()
		trip := &roadbookv1.TripDigest{Title: "Passi", Stages: []*roadbookv1.StageDigest{
			{Index: 0, DistanceM: 82000, AscentM: 1707, DescentM: 1511, RidingHours: 5.9, StartLabel: "Maslianico", EndLabel: "Bodio"},
			{Index: 1, RestDay: true, StartLabel: "Bodio", EndLabel: "Bodio"},
		}}
		var b strings.Builder
		printDigest(&b, trip)
		var ride, rest string
		for _, l := range strings.Split(b.String(), "\n") {
			switch {
			case strings.HasPrefix(l, "    1  "):
				ride = l
			case strings.HasPrefix(l, "    2  "):
				rest = l
			}
		}
		require.Equal(t, "    2  -           rest day                        staying at Bodio", rest)
		require.Equal(t, strings.Index(ride, "Maslianico"), strings.Index(rest, "staying"), "the place stands in the FROM → TO column:\n%s\n%s", ride, rest)
	})
}
