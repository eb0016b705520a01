package geocode

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestQueuePrune(t *testing.T) {
	t.Parallel()
	open := make(chan struct{})
	close(open) // every geocoder call answers at once
	g := &gatedGeocoder{gate: open, name: func(lat, lon float64) string { return fmt.Sprintf("%c%d", 'A'+rune(lat), int(lon)) }}
	q, err := NewQueue(g, func(context.Context, string, string, []StageLabel) error { return nil },
		QueueOptions{KeepDone: 10 * time.Minute, Interval: time.Millisecond})
	require.NoError(t, err)
	var clock sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	q.now = func() time.Time { clock.Lock(); defer clock.Unlock(); return now }
	advance := func(d time.Duration) { clock.Lock(); now = now.Add(d); clock.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = q.Run(ctx) }()
	label := func(id rune) {
		t.Helper()
		require.NoError(t, q.Label(ctx, string(id), stages(id, 1)))
		require.Eventually(t, func() bool {
			p, ok := q.Progress(string(id))
			return ok && p.State == LabelsDone
		}, 5*time.Second, time.Millisecond)
	}
	known := func(id rune) bool { _, ok := q.Progress(string(id)); return ok }

	label('A')
	advance(5 * time.Minute)
	label('B')
	advance(6 * time.Minute)
	label('C') // A finished 11 minutes ago, B 6
	require.False(t, known('A'), "a trip finished longer than KeepDone ago is forgotten")
	require.True(t, known('B'))

	label('B') // labelled again: finished now
	advance(6 * time.Minute)
	label('D') // B's first completion is 12 minutes old, its second 6
	require.True(t, known('B'), "a trip labelled again since is kept")
	require.True(t, known('C'))
	advance(11 * time.Minute)
	label('E')
	require.False(t, known('B'))
	require.False(t, known('C'))
	require.False(t, known('D'))
	q.mu.Lock()
	defer q.mu.Unlock()
	require.Len(t, q.trips, 1, "only E is left")
	require.Len(t, q.done, 1, "and only its completion waits to expire")
}
