package relay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrLeaseLost: another relay holds the lease now (this one failed to renew
// it in time); the relay stops publishing and campaigns again.
var ErrLeaseLost = errors.New("relay: lease lost")

// DefaultLeaseBucket is the KV bucket holding the relay lease.
const DefaultLeaseBucket = "roadbook_relay_lease"

// leaseKey is the one key of the bucket.
const leaseKey = "active"

// Lease is a NATS KV lease: the holder's key expires with the bucket's TTL
// unless renewed, so a killed relay is replaced within one TTL.
type Lease struct {
	kv    jetstream.KeyValue
	owner string
	ttl   time.Duration
	rev   uint64
}

// OpenLease creates (or opens) the lease bucket. ttl bounds the failover
// time; renewals happen every ttl/3.
func OpenLease(ctx context.Context, js jetstream.JetStream, bucket, owner string, ttl time.Duration) (*Lease, error) {
	if owner == "" {
		return nil, fmt.Errorf("relay: lease owner is empty")
	}
	if ttl < time.Second {
		return nil, fmt.Errorf("relay: lease TTL %s is below 1s", ttl)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: bucket, Description: "the active Roadbook relay", TTL: ttl, History: 1, Storage: jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("relay: open lease bucket %s: %w", bucket, err)
	}
	return &Lease{kv: kv, owner: owner, ttl: ttl}, nil
}

// Acquire blocks until this relay holds the lease or ctx ends.
func (l *Lease) Acquire(ctx context.Context) error {
	for {
		rev, err := l.kv.Create(ctx, leaseKey, []byte(l.owner))
		if err == nil {
			l.rev = rev
			return nil
		}
		// ErrKeyExists: another relay is active. Anything else: NATS is
		// away; either way keep campaigning.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(l.ttl / 3):
		}
	}
}

// Keep renews the lease every ttl/3 until ctx ends (nil) or a renewal is
// refused or cannot be made before the lease would lapse (ErrLeaseLost).
func (l *Lease) Keep(ctx context.Context) error {
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	lastOK := time.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, l.ttl/3)
		rev, err := l.kv.Update(rctx, leaseKey, []byte(l.owner), l.rev)
		cancel()
		switch {
		case err == nil:
			l.rev, lastOK = rev, time.Now()
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyNotFound):
			return fmt.Errorf("%w: %v", ErrLeaseLost, err)
		case time.Since(lastOK) > l.ttl*2/3:
			// Renewals are failing (NATS away): stop before another relay
			// could take over, so two never publish at once for long.
			return fmt.Errorf("%w: no renewal for %s: %v", ErrLeaseLost, time.Since(lastOK).Round(time.Millisecond), err)
		}
	}
}

// Release gives the lease up at once (graceful shutdown), so a standby takes
// over without waiting a TTL.
func (l *Lease) Release(ctx context.Context) {
	_ = l.kv.Delete(ctx, leaseKey, jetstream.LastRevision(l.rev))
}
