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
	return Place{Name: n, Lat: lat, Lon: lon}, nil
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
	// Both callers get their own answer. The order the geocoder served
	// them in (newest first: the oldest caller is the likeliest to have
	// gone) is the call log's, checked below; the order the two goroutines
	// hand their results back in is the scheduler's.
	got := []string{(<-results)[0].Name, (<-results)[0].Name}
	require.ElementsMatch(t, []string{"first", "second"}, got)

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

// flakyGeocoder fails every reverse call while down, and names points
// "<lat>,<lon>" otherwise.
type flakyGeocoder struct {
	mu   sync.Mutex
	down bool
}

func (g *flakyGeocoder) setDown(d bool) { g.mu.Lock(); g.down = d; g.mu.Unlock() }

func (g *flakyGeocoder) Search(context.Context, string, int) ([]Place, error) { return nil, nil }

func (g *flakyGeocoder) Reverse(_ context.Context, lat, lon float64) (Place, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.down {
		return Place{}, fmt.Errorf("%w: 503 from the fake", ErrUnavailable)
	}
	return Place{Name: fmt.Sprintf("%g,%g", lat, lon)}, nil
}

func (g *flakyGeocoder) Name() string { return "flaky" }

func TestQueueOutage(t *testing.T) {
	t.Parallel()
	g := &flakyGeocoder{down: true}
	var mu sync.Mutex
	told := map[string]int{} // trip → stages reported unavailable
	delivered := map[string]int{}
	q, err := NewQueue(g, func(_ context.Context, tripID, _ string, labels []StageLabel) error {
		mu.Lock()
		delivered[tripID] += len(labels)
		mu.Unlock()
		return nil
	}, QueueOptions{Interval: time.Millisecond, LabelRetry: time.Hour, Unavailable: func(_ context.Context, tripID, _, reason string, stages []StageEnds) {
		mu.Lock()
		told[tripID] += len(stages)
		mu.Unlock()
	}})
	require.NoError(t, err)
	var clock sync.Mutex
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	q.now = func() time.Time { clock.Lock(); defer clock.Unlock(); return now }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = q.Run(ctx) }()

	require.NoError(t, q.Label(ctx, "A", stages('A', 3)))
	require.Eventually(t, func() bool {
		p, _ := q.Progress("A")
		return p.State == LabelsUnavailable
	}, 5*time.Second, time.Millisecond, "the outage marks the queued trip unavailable")

	t.Run("a trip asking during the outage is unavailable at once, with the outage's reason", func(t *testing.T) {
		require.NoError(t, q.Label(ctx, "B", stages('B', 2)))
		p, ok := q.Progress("B")
		require.True(t, ok)
		require.Equal(t, LabelsUnavailable, p.State)
		require.Contains(t, p.Reason, "503 from the fake")
		require.False(t, p.RetryAt.IsZero())
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, 2, told["B"], "the worker is told which stages are left without labels")
	})

	t.Run("when the geocoder is back the labels of both trips fill in", func(t *testing.T) {
		g.setDown(false)
		clock.Lock()
		now = now.Add(2 * time.Hour)
		clock.Unlock()
		q.signal()
		require.Eventually(t, func() bool {
			a, _ := q.Progress("A")
			b, _ := q.Progress("B")
			return a.State == LabelsDone && b.State == LabelsDone
		}, 5*time.Second, time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, 3, delivered["A"])
		require.Equal(t, 2, delivered["B"])
	})
}

func TestQueueDoneMeansDelivered(t *testing.T) {
	t.Parallel()
	g := &flakyGeocoder{}
	entered, release := make(chan struct{}), make(chan struct{})
	q, err := NewQueue(g, func(context.Context, string, string, []StageLabel) error {
		close(entered)
		<-release // the sink is still writing the trip's last batch
		return nil
	}, QueueOptions{Interval: time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = q.Run(ctx) }()

	require.NoError(t, q.Label(ctx, "A", stages('A', 2)))
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the sink was not called within 5 s")
	}
	t.Run("while the last batch is being written the trip is not done", func(t *testing.T) {
		p, ok := q.Progress("A")
		require.True(t, ok)
		require.Equal(t, LabelsRunning, p.State, "Done promises every stage delivered")
		require.Equal(t, 2, p.Done)
	})
	close(release)
	t.Run("once the sink returned the trip is done", func(t *testing.T) {
		require.Eventually(t, func() bool {
			p, _ := q.Progress("A")
			return p.State == LabelsDone
		}, 5*time.Second, time.Millisecond)
	})
}
