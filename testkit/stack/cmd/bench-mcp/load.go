package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// load runs fn from n workers (fn gets the worker's index, so each uses its
// own session) for d, and returns the calls completed and their latencies.
// Any failed call fails the run: a benchmark of errors measures nothing.
func load(ctx context.Context, n int, d time.Duration, fn func(ctx context.Context, worker int) error) (int, []time.Duration, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		all   []time.Duration
		fail  atomic.Pointer[error]
		count atomic.Int64
	)
	deadline := time.Now().Add(d)
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) && fail.Load() == nil {
				start := time.Now()
				if err := fn(ctx, w); err != nil {
					fail.Store(&err)
					return
				}
				mine = append(mine, time.Since(start))
				count.Add(1)
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if p := fail.Load(); p != nil {
		return 0, nil, *p
	}
	return int(count.Load()), all, nil
}

// percentile is the p-th percentile of sorted latencies (0 when empty).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
