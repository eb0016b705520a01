package upstream

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// KVCache is the Cache shared by every replica: a JetStream KV bucket whose
// TTL expires entries (24 h for geocoding and fetched routes). Keys are
// hashed (SHA-256) because request keys contain characters KV keys forbid.
type KVCache struct {
	kv jetstream.KeyValue
}

// NewKVCache creates (or binds to) bucket with the given TTL and maximum
// value size (bytes; ≤ 0 = server default). ttl must be positive.
func NewKVCache(ctx context.Context, js jetstream.JetStream, bucket string, ttl time.Duration, maxValueBytes int32) (*KVCache, error) {
	if js == nil {
		return nil, fmt.Errorf("%w: KV cache needs a JetStream context", ErrInvalidOption)
	}
	if ttl <= 0 {
		return nil, fmt.Errorf("%w: cache TTL must be positive, got %s", ErrInvalidOption, ttl)
	}
	if bucket == "" {
		return nil, fmt.Errorf("%w: KV cache bucket name is empty", ErrInvalidOption)
	}
	cfg := jetstream.KeyValueConfig{
		Bucket:      bucket,
		Description: "Roadbook: shared cache of third-party responses",
		History:     1,
		TTL:         ttl,
	}
	if maxValueBytes > 0 {
		cfg.MaxValueSize = maxValueBytes
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("upstream: KV cache bucket %q: %w", bucket, err)
	}
	return &KVCache{kv: kv}, nil
}

// Get implements Cache.
func (c *KVCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	e, err := c.kv.Get(ctx, kvKey(key))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return e.Value(), true, nil
}

// Put implements Cache.
func (c *KVCache) Put(ctx context.Context, key string, value []byte) error {
	_, err := c.kv.Put(ctx, kvKey(key), value)
	return err
}

func kvKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
