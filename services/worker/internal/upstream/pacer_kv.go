package upstream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// KVPacer grants one slot per interval to the WHOLE application: every
// replica connected to the same NATS shares one key in a JetStream KV bucket
// holding the next allowed send time (Unix nanoseconds). A caller reads the
// key, reserves slot = max(now, next) by writing slot+interval with a
// compare-and-swap on the key's revision (KV Create/Update), retries on a
// conflict, then sleeps until its slot. Within a process, callers queue on a
// local semaphore first, so at most one reservation per process is pending
// and the KV sees little contention.
//
// Replicas compare the stored time with their own clocks, so clock skew
// between hosts eats into the margin: pace with room (Nominatim: ≥ 1.1 s for
// a 1 s limit) and keep hosts on NTP.
type KVPacer struct {
	kv       jetstream.KeyValue
	key      string
	interval time.Duration
	sem      chan struct{}
}

// DefaultPacerBucket is the KV bucket pacers use unless told otherwise.
const DefaultPacerBucket = "roadbook_upstream_pacer"

// NewKVPacer creates (or binds to) bucket and returns a pacer keyed by key
// (one key per upstream, e.g. "nominatim"). interval must be positive; key
// must be a valid KV key.
func NewKVPacer(ctx context.Context, js jetstream.JetStream, bucket, key string, interval time.Duration) (*KVPacer, error) {
	if js == nil {
		return nil, fmt.Errorf("%w: KV pacer needs a JetStream context", ErrInvalidOption)
	}
	if interval <= 0 {
		return nil, fmt.Errorf("%w: pacer interval must be positive, got %s", ErrInvalidOption, interval)
	}
	if !validKVKey(key) {
		return nil, fmt.Errorf("%w: pacer key %q must match [-_=.a-zA-Z0-9/]+", ErrInvalidOption, key)
	}
	if bucket == "" {
		bucket = DefaultPacerBucket
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      bucket,
		Description: "Roadbook: next allowed send time per third-party upstream",
		History:     1,
	})
	if err != nil {
		return nil, fmt.Errorf("upstream: KV pacer bucket %q: %w", bucket, err)
	}
	return &KVPacer{kv: kv, key: key, interval: interval, sem: make(chan struct{}, 1)}, nil
}

// Interval implements Pacer.
func (p *KVPacer) Interval() time.Duration { return p.interval }

// Wait implements Pacer. An error from NATS is returned (wrapped in
// ErrUnavailable by the client): without the shared pacer we do not send.
func (p *KVPacer) Wait(ctx context.Context) error {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.sem }()
	slot, err := p.reserve(ctx)
	if err != nil {
		return err
	}
	return sleepUntil(ctx, slot)
}

// reserve claims the next slot with a CAS loop on the shared key.
func (p *KVPacer) reserve(ctx context.Context) (time.Time, error) {
	for {
		if err := ctx.Err(); err != nil {
			return time.Time{}, err
		}
		entry, err := p.kv.Get(ctx, p.key)
		var next time.Time
		var rev uint64
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return time.Time{}, fmt.Errorf("pacer %q: read: %w", p.key, err)
		default:
			rev = entry.Revision()
			if v := entry.Value(); len(v) == 8 {
				next = time.Unix(0, int64(binary.BigEndian.Uint64(v)))
			}
		}
		now := time.Now()
		slot := next
		if slot.Before(now) {
			slot = now
		}
		val := binary.BigEndian.AppendUint64(nil, uint64(slot.Add(p.interval).UnixNano()))
		if rev == 0 {
			_, err = p.kv.Create(ctx, p.key, val)
		} else {
			_, err = p.kv.Update(ctx, p.key, val, rev)
		}
		if err == nil {
			return slot, nil
		}
		if isCASConflict(err) {
			continue
		}
		return time.Time{}, fmt.Errorf("pacer %q: reserve: %w", p.key, err)
	}
}

// isCASConflict recognises a lost compare-and-swap (someone else reserved
// first): wrong last sequence on Update, key exists on Create.
func isCASConflict(err error) bool {
	if errors.Is(err, jetstream.ErrKeyExists) {
		return true
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
		return true
	}
	return false
}

// validKVKey mirrors the JetStream KV key rule.
func validKVKey(k string) bool {
	if k == "" || k[0] == '.' || k[len(k)-1] == '.' {
		return false
	}
	for _, r := range k {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '-', r == '_', r == '=', r == '.', r == '/':
		default:
			return false
		}
	}
	return true
}
