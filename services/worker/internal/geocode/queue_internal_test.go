package geocode

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// gatedGeocoder records the order of calls and holds each until released,
// so a test can decide what is queued while a call is in progress.
type gatedGeocoder struct {
	mu    sync.Mutex
	calls []string
	gate  chan struct{}
	name  func(lat, lon float64) string
}

func (g *gatedGeocoder) record(s string) {
	g.mu.Lock()
	g.calls = append(g.calls, s)
	g.mu.Unlock()
	<-g.gate
}

func (g *gatedGeocoder) Search(_ context.Context, q string, _ int) ([]Place, error) {
	g.record("search " + q)
	return []Place{{Name: q}}, nil
}

func (g *gatedGeocoder) Reverse(_ context.Context, lat, lon float64) (Place, error) {
	n := g.name(lat, lon)
	g.record("reverse " + n)
	return Place{Name: n}, nil
}

func (g *gatedGeocoder) Name() string { return "gated" }

func (g *gatedGeocoder) snapshot() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.calls...)
}

// stages makes n consecutive stages of trip id whose ends geocode to
// "<id><k>": the trip letter is in the latitude, the end index in the
// longitude.
func stages(id rune, n int) []StageEnds {
	var out []StageEnds
	for i := range n {
		out = append(out, StageEnds{
			Index: i, ContentHash: fmt.Sprintf("%064d", i),
			Start: Point{Lat: float64(id - 'A'), Lon: float64(i)},
			End:   Point{Lat: float64(id - 'A'), Lon: float64(i + 1)},
		})
	}
	return out
}

func TestQueueOrder(t *testing.T) {
	t.Parallel()
	g := &gatedGeocoder{gate: make(chan struct{}), name: func(lat, lon float64) string {
		return fmt.Sprintf("%c%d", 'A'+rune(lat), int(lon))
	}}
	var mu sync.Mutex
	delivered := map[string][]StageLabel{}
	q, err := NewQueue(g, func(_ context.Context, trip, geocoder string, labels []StageLabel) error {
		require.Equal(t, "gated", geocoder)
		mu.Lock()
		delivered[trip] = append(delivered[trip], labels...)
		mu.Unlock()
		return nil
	}, QueueOptions{Batch: 2})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, q.Label(ctx, "A", stages('A', 3)))
	require.NoError(t, q.Label(ctx, "B", stages('B', 3)))
	go func() { _ = q.Run(ctx) }()

	// The first label call is in progress; two searches arrive behind it.
	require.Eventually(t, func() bool { return len(g.snapshot()) == 1 }, 5*time.Second, time.Millisecond)
	results := make(chan []Place, 2)
	for _, s := range []string{"first", "second"} {
		go func() {
			p, err := q.Search(ctx, s, 1)
			require.NoError(t, err)
			results <- p
		}()
		// Wait until this search is queued before sending the next, so
		// their order is known.
		require.Eventually(t, func() bool {
			q.mu.Lock()
			defer q.mu.Unlock()
			return (s == "first" && len(q.calls) == 1) || (s == "second" && len(q.calls) == 2)
		}, 5*time.Second, time.Millisecond)
	}
	for range 10 {
		g.gate <- struct{}{}
	}
	require.Equal(t, "second", (<-results)[0].Name, "newest first: the oldest caller is the likeliest to have gone")
	require.Equal(t, "first", (<-results)[0].Name)

	t.Run("searches go before labels and labels alternate between trips", func(t *testing.T) {
		require.Equal(t, []string{
			"reverse A0", "search second", "search first",
			"reverse B0", "reverse A1", "reverse B1", "reverse A2", "reverse B2", "reverse A3", "reverse B3",
		}, g.snapshot())
	})

	t.Run("every stage is delivered once with both ends, and progress says done", func(t *testing.T) {
		require.Eventually(t, func() bool {
			p, ok := q.Progress("B")
			return ok && p.State == LabelsDone
		}, 5*time.Second, time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		for _, trip := range []string{"A", "B"} {
			got := delivered[trip]
			require.Len(t, got, 3, trip)
			for i, l := range got {
				require.Equal(t, i, l.Index)
				require.Equal(t, fmt.Sprintf("%s%d", trip, i), l.Start)
				require.Equal(t, fmt.Sprintf("%s%d", trip, i+1), l.End)
			}
			p, ok := q.Progress(trip)
			require.True(t, ok)
			require.Equal(t, LabelProgress{State: LabelsDone, Done: 3, Total: 3}, p)
		}
	})
}

func TestQueueFull(t *testing.T) {
	t.Parallel()
	g := &gatedGeocoder{gate: make(chan struct{}), name: func(float64, float64) string { return "x" }}
	q, err := NewQueue(g, func(context.Context, string, string, []StageLabel) error { return nil }, QueueOptions{MaxSearches: 1, Interval: time.Second})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Not running: the first search waits in line, the second finds it full.
	go func() { _, _ = q.Search(ctx, "waiting", 1) }()
	require.Eventually(t, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.calls) == 1
	}, 5*time.Second, time.Millisecond)

	t.Run("a search beyond the line is rate limited with a retry hint", func(t *testing.T) {
		_, err := q.Search(ctx, "refused", 1)
		require.ErrorIs(t, err, ErrRateLimited)
		require.Equal(t, 2*time.Second, RetryAfter(err))
	})

	t.Run("stopping the queue releases waiting callers with unavailable", func(t *testing.T) {
		res := make(chan error, 1)
		q2, err := NewQueue(g, func(context.Context, string, string, []StageLabel) error { return nil }, QueueOptions{})
		require.NoError(t, err)
		go func() { _, err := q2.Search(context.Background(), "stranded", 1); res <- err }()
		require.Eventually(t, func() bool {
			q2.mu.Lock()
			defer q2.mu.Unlock()
			return len(q2.calls) == 1
		}, 5*time.Second, time.Millisecond)
		stopped, stop := context.WithCancel(context.Background())
		stop()
		require.ErrorIs(t, q2.Run(stopped), context.Canceled)
		require.ErrorIs(t, <-res, ErrUnavailable)
	})
}
