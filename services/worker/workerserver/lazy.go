package workerserver

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// lazy binds a NATS KV-backed value on first use: New runs before JetStream
// may be reachable (Run waits for it), and the shared buckets need it. A
// failed bind is retried by the next call rather than remembered.
type lazy[T any] struct {
	bind func(ctx context.Context) (T, error)

	mu    sync.Mutex
	bound bool
	v     T
}

func (l *lazy[T]) get(ctx context.Context) (T, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bound {
		return l.v, nil
	}
	v, err := l.bind(ctx)
	if err != nil {
		return v, err
	}
	l.v, l.bound = v, true
	return v, nil
}

// lazyPacer is the application-wide KV pacer of one upstream (key), bound
// on first use.
type lazyPacer struct {
	lazy[*upstream.KVPacer]
	interval time.Duration
}

func newLazyPacer(js jetstream.JetStream, key string, interval time.Duration) *lazyPacer {
	return &lazyPacer{interval: interval, lazy: lazy[*upstream.KVPacer]{bind: func(ctx context.Context) (*upstream.KVPacer, error) {
		return upstream.NewKVPacer(ctx, js, upstream.DefaultPacerBucket, key, interval)
	}}}
}

// Wait implements upstream.Pacer.
func (l *lazyPacer) Wait(ctx context.Context) error {
	p, err := l.get(ctx)
	if err != nil {
		return err
	}
	return p.Wait(ctx)
}

// Interval implements upstream.Pacer.
func (l *lazyPacer) Interval() time.Duration { return l.interval }

// lazyCache is a shared KV cache, bound on first use. Cache errors are
// advisory (the client treats them as misses).
type lazyCache struct{ lazy[*upstream.KVCache] }

func newLazyCache(js jetstream.JetStream, bucket string, ttl time.Duration) *lazyCache {
	return &lazyCache{lazy[*upstream.KVCache]{bind: func(ctx context.Context) (*upstream.KVCache, error) {
		return upstream.NewKVCache(ctx, js, bucket, ttl, 0)
	}}}
}

// Get implements upstream.Cache.
func (l *lazyCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	c, err := l.get(ctx)
	if err != nil {
		return nil, false, err
	}
	return c.Get(ctx, key)
}

// Put implements upstream.Cache.
func (l *lazyCache) Put(ctx context.Context, key string, value []byte) error {
	c, err := l.get(ctx)
	if err != nil {
		return err
	}
	return c.Put(ctx, key, value)
}
