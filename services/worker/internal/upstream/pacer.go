package upstream

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Pacer spaces requests to one upstream. Wait blocks until the caller may
// send one request and reserves that send slot; it returns the context's
// error if the context ends first. A Pacer shared by every replica (see
// [KVPacer]) is how a per-application limit such as Nominatim's 1 request/s
// is kept; [LocalPacer] keeps a per-process limit.
type Pacer interface {
	Wait(ctx context.Context) error
	// Interval is the minimum spacing between two granted slots.
	Interval() time.Duration
}

// LocalPacer grants at most one slot per interval within one process. It is
// the fallback for upstreams without an application-wide limit and for tests
// that do not run NATS.
type LocalPacer struct {
	interval time.Duration
	mu       sync.Mutex
	next     time.Time
}

// NewLocalPacer returns a pacer granting one slot per interval. interval
// must be positive.
func NewLocalPacer(interval time.Duration) (*LocalPacer, error) {
	if interval <= 0 {
		return nil, fmt.Errorf("%w: pacer interval must be positive, got %s", ErrInvalidOption, interval)
	}
	return &LocalPacer{interval: interval}, nil
}

// Interval implements Pacer.
func (p *LocalPacer) Interval() time.Duration { return p.interval }

// Wait implements Pacer: it reserves the next free slot and sleeps until it.
// A slot reserved by a caller whose context then ends is not reused (the
// spacing only ever errs on the safe side).
func (p *LocalPacer) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	now := time.Now()
	slot := p.next
	if slot.Before(now) {
		slot = now
	}
	p.next = slot.Add(p.interval)
	p.mu.Unlock()
	return sleepUntil(ctx, slot)
}

// sleepUntil waits for t or the end of ctx.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
