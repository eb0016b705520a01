package workerserver

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"
)

// kvReplicas gives every KV bucket the worker creates — the relay lease,
// the upstream pacers, the geocoder, route and provider caches — the
// replica count of the EVENTS and JOBS streams (StreamOptions.Replicas), so
// on a 3-node cluster losing one node takes none of them away: a lease
// bucket on the lost node alone would stop the relay until it returned. It
// wraps the worker's JetStream context once, in New, instead of threading a
// count through every bucket's constructor; a config that names its own
// count keeps it.
type kvReplicas struct {
	jetstream.JetStream
	replicas int
}

// CreateKeyValue implements jetstream.KeyValueManager.
func (k kvReplicas) CreateKeyValue(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	return k.JetStream.CreateKeyValue(ctx, k.with(cfg))
}

// UpdateKeyValue implements jetstream.KeyValueManager.
func (k kvReplicas) UpdateKeyValue(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	return k.JetStream.UpdateKeyValue(ctx, k.with(cfg))
}

// CreateOrUpdateKeyValue implements jetstream.KeyValueManager.
func (k kvReplicas) CreateOrUpdateKeyValue(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	return k.JetStream.CreateOrUpdateKeyValue(ctx, k.with(cfg))
}

func (k kvReplicas) with(cfg jetstream.KeyValueConfig) jetstream.KeyValueConfig {
	if cfg.Replicas == 0 {
		cfg.Replicas = k.replicas
	}
	return cfg
}
