package workerserver

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// lazyPacer is a KV pacer bound on first use: New runs before JetStream may
// be reachable (Run waits for it), and the shared bucket needs it. A failed
// bind is retried by the next call rather than remembered.
type lazyPacer struct {
	js       jetstream.JetStream
	key      string
	interval time.Duration

	mu sync.Mutex
	p  *upstream.KVPacer
}

func (l *lazyPacer) get(ctx context.Context) (*upstream.KVPacer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.p != nil {
		return l.p, nil
	}
	p, err := upstream.NewKVPacer(ctx, l.js, upstream.DefaultPacerBucket, l.key, l.interval)
	if err != nil {
		return nil, err
	}
	l.p = p
	return p, nil
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

// lazyCache is a KV cache bound on first use, for the same reason. Cache
// errors are advisory (the client treats them as misses).
type lazyCache struct {
	js     jetstream.JetStream
	bucket string
	ttl    time.Duration

	mu sync.Mutex
	c  *upstream.KVCache
}

func (l *lazyCache) get(ctx context.Context) (*upstream.KVCache, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c != nil {
		return l.c, nil
	}
	c, err := upstream.NewKVCache(ctx, l.js, l.bucket, l.ttl, 0)
	if err != nil {
		return nil, err
	}
	l.c = c
	return c, nil
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
